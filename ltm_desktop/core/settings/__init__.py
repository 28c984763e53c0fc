"""Settings: the config file, where the data lives, and the memory switch."""
