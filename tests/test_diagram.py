"""The diagram, checked as a person would: rendered to PNG, it must be a real picture with the plan's
additions in green."""

from __future__ import annotations

import io
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.plan.build import make_plan
from fabricgen.plan.diagram import ADDED, CHANGED, build_svg
from fabricgen.plan.inputs import record_path
from tests.conftest import INVENTORIES, load_fabric, require

BEFORE = INVENTORIES / "expansion" / "before"
AFTER = INVENTORIES / "expansion" / "after"


def to_png(svg: str) -> bytes:
    """SVG → PNG with cairosvg (PyPI) or rsvg-convert (Debian's librsvg2-bin)."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except (ImportError, OSError):
        exe = shutil.which("rsvg-convert")
        require(exe is not None, "no SVG renderer: install cairosvg with the system libcairo2, or librsvg2-bin")
        assert exe is not None
        return subprocess.run([exe, "-f", "png"], input=svg.encode(), capture_output=True, check=True).stdout
    out: bytes = cairosvg.svg2png(bytestring=svg.encode())
    return out


def pixels(png: bytes) -> tuple[int, int, dict[tuple[int, int, int], int]]:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    counts: dict[tuple[int, int, int], int] = {}
    for count, colour in img.getcolors(maxcolors=1 << 24) or []:
        counts[colour] = count
    return img.width, img.height, counts


def hex_rgb(h: str) -> tuple[int, int, int]:
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)


def test_expansion_diagram_png(tmp_path: Path) -> None:
    before, after = load_fabric(BEFORE), load_fabric(AFTER)
    plan = make_plan(before, after, record_path(BEFORE), record_path(AFTER), configs=False)
    svg = build_svg(after, plan)
    ET.fromstring(svg)  # well-formed XML
    # 16 new leaves, 2 unit frames, 2 server boxes (+ 1 legend swatch each)
    assert svg.count(f'fill="{ADDED[0]}"') == 16 + 2 + 2 + 1
    assert svg.count(f'fill="{CHANGED[0]}"') == 8 + 1  # the 8 spines gain ports
    assert "128 × 800G · 1.00:1" in svg and "256 × 400G" in svg
    png = to_png(svg)
    (tmp_path / "expansion.png").write_bytes(png)
    w, h, colours = pixels(png)
    assert w > 1000 and h > 300
    white = colours.get((255, 255, 255), 0)
    assert white < 0.97 * w * h  # something is drawn
    assert len(colours) > 50  # text and shapes, anti-aliased
    assert colours.get(hex_rgb(ADDED[0]), 0) > 5_000  # green areas a person sees
    assert colours.get(hex_rgb(CHANGED[0]), 0) > 1_000


def test_large_fabric_is_aggregated() -> None:
    fabric = load_fabric(INVENTORIES / "multi-su")
    svg = build_svg(fabric, detail=False)
    ET.fromstring(svg)
    assert "pod 1" in svg and "units 1–8" in svg and "64 leaves" in svg
    w, h, colours = pixels(to_png(svg))
    assert w > 300 and h > 200 and len(colours) > 20


def test_diagram_command(tmp_path: Path) -> None:
    out = tmp_path / "fabric.svg"
    result = CliRunner().invoke(app, ["diagram", str(INVENTORIES / "su1"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_text())
    assert root.tag.endswith("svg")
    assert "leaf-su001-r0" in out.read_text()
