"""The shipped cables and optics: read once, or taken from a command's own catalog load
when that load was of the shipped folder alone (no user folder to overlay it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.calc.fabric import media
from workbench.catalog import load_catalog
from workbench.catalog.loader import shipped_catalog_dir


def _slugs(items) -> list[str]:
    return [i.slug for i in items]


def test_a_load_of_the_shipped_folder_alone_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(media, "_SHIPPED", [])
    catalog = load_catalog([shipped_catalog_dir()])
    media.remember_shipped(catalog)
    kept = media.shipped_parts()
    # The same items as the command's catalog, and the same as a load of its own.
    assert all(catalog.get(i.slug) is i for i in kept)
    monkeypatch.setattr(media, "_SHIPPED", [])
    fresh = media.shipped_parts()
    assert _slugs(kept) == _slugs(fresh)
    assert kept == fresh
    assert {i.kind for i in kept} == {"cable", "optic"}


def test_a_catalog_with_a_user_folder_is_not_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "mine.yaml").write_text(
        "slug: my-cable\nkind: cable\nrole: cable\nmanufacturer: Me\nmodel: Cable\n"
        "u_height: 0\nprops: {speed_gbps: 400, length_m: 3, fiber: copper}\n"
    )
    monkeypatch.setattr(media, "_SHIPPED", [])
    catalog = load_catalog([shipped_catalog_dir(), tmp_path])
    assert catalog.get("my-cable") is not None, catalog.errors
    media.remember_shipped(catalog)
    assert media._SHIPPED == []
    assert "my-cable" not in _slugs(media.shipped_parts())
