"""The Qt window: document, commands, views and dialogs."""
