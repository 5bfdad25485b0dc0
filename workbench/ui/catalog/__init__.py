"""The catalog side of the window: the palette, device-type import and entering a missing power figure."""
