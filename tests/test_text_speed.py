"""The application draws Latin text without shaping (render/text_speed.py)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QLabel

from workbench.render.text_speed import draw_text_unshaped


def test_the_window_and_the_print_command_draw_text_unshaped(qtbot) -> None:
    from workbench.cli.print_cmd import _gui_application
    from workbench.ui.shell.app import _application

    app = QGuiApplication.instance()
    before = app.font()
    try:
        app.setFont(QFont(before.family()))  # a font without the strategy
        assert not app.font().styleStrategy() & QFont.StyleStrategy.PreferNoShaping
        for start in (_application, _gui_application):
            app.setFont(QFont(before.family()))
            assert start() is app
            assert app.font().styleStrategy() & QFont.StyleStrategy.PreferNoShaping
            label = QLabel("Y02 needs 51.7 kW")
            qtbot.addWidget(label)
            # Widgets inherit it: the Checks rows and the inspector are drawn so.
            assert label.font().styleStrategy() & QFont.StyleStrategy.PreferNoShaping
        # Only the strategy changes: the family and size stay the user's.
        app.setFont(QFont(before.family(), 17))
        draw_text_unshaped()
        assert (app.font().family(), app.font().pointSize()) == (before.family(), 17)
        assert app.font().styleStrategy() & QFont.StyleStrategy.PreferNoShaping
    finally:
        app.setFont(before)
