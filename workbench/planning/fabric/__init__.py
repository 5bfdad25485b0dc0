"""Planning a network fabric: sizing, generating, wiring and placing switches, Qt-free."""
