"""Privacy: secrets found and refused or redacted, text that reads like instructions flagged, forgetting and erasing."""
