"""Reference pictures, compared with a small tolerance (fonts and resampling may differ
slightly between Pillow and FreeType versions). To regenerate after a deliberate change:
`python -m tests.renderer.regenerate` (or run the tests with FAIRYPOST_REGENERATE=1)."""

from __future__ import annotations

import os

import pytest
from PIL import ImageChops

from tests.renderer.conftest import decode
from tests.renderer.references import REFERENCE_DIR, REFERENCES

MEAN_TOLERANCE = 1.5  # mean absolute difference per channel, 0-255
CHANGED_FRACTION = 0.01  # share of pixels allowed to differ by more than 40


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_image(name: str) -> None:
    path = REFERENCE_DIR / name
    png = REFERENCES[name]()
    if os.environ.get("FAIRYPOST_REGENERATE"):
        path.write_bytes(png)
        pytest.skip(f"regenerated {path}")
    expected = decode(path.read_bytes())
    actual = decode(png)
    assert actual.size == expected.size
    diff = ImageChops.difference(actual, expected).convert("L")
    hist = diff.histogram()
    total = actual.size[0] * actual.size[1]
    mean = sum(i * n for i, n in enumerate(hist)) / total
    changed = sum(hist[41:]) / total
    assert mean <= MEAN_TOLERANCE, f"{name}: mean difference {mean:.2f}"
    assert changed <= CHANGED_FRACTION, f"{name}: {changed:.2%} of the pixels changed"
