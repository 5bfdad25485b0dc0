"""The window's shell: the main window, the open document, the file, print, export and import actions, the live figures, the summary strip and the inspector."""
