"""A catalog file whose bytes passed the schema once is not checked again (in this
process or the next); a file whose bytes changed, or that failed, always is."""

from __future__ import annotations

from pathlib import Path

from workbench.catalog import loader, schema_cache

GOOD = b"""slug: cache-test-switch
manufacturer: Test
model: Cache switch
kind: switch
u_height: 1
max_power_w: 300
"""


def counting(monkeypatch) -> list[int]:
    calls = [0]
    real = loader.schema_errors

    def spy(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "schema_errors", spy)
    return calls


def test_a_file_that_passed_is_not_validated_again(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(schema_cache, "_passed", set())
    monkeypatch.setattr(schema_cache, "_loaded_from", None)
    calls = counting(monkeypatch)
    path = tmp_path / "switch.yaml"
    path.write_bytes(GOOD)
    assert [i.slug for i in loader.load_file(path).items] == ["cache-test-switch"]
    assert calls[0] == 1
    assert loader.load_file(path).items and calls[0] == 1
    # The next process reads the verdict from the cache folder.
    monkeypatch.setattr(schema_cache, "_passed", set())
    monkeypatch.setattr(schema_cache, "_loaded_from", None)
    assert loader.load_file(path).items and calls[0] == 1
    # Other bytes: checked again, and a failing file is checked every time.
    path.write_bytes(GOOD.replace(b"u_height: 1", b"u_height: 1\nairflow: sideways"))
    first = loader.load_file(path)
    second = loader.load_file(path)
    assert calls[0] == 3
    assert first.errors and [str(e) for e in first.errors] == [str(e) for e in second.errors]
