"""The app's dialogs: connecting an agent, installing its hooks, secrets found, extract, export, import and backup."""
