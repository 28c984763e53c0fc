"""The main window and its frame: menus, bars, side panels, the status bar and the window-wide keys."""
