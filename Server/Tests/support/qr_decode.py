"""Decode the SVG QR codes Latchkey makes (QRCode.svg() in LatchkeyCore) with a real QR reader.

    from qr_decode import decode_svg
    assert decode_svg(svg_text) == "otpauth://totp/..."

The SVG is turned into pixels and read by zxing-cpp. Rendering uses CairoSVG (which needs the system's
libcairo2); without it, the single <path> of our own SVG is drawn directly with Pillow. Needs the PyPI packages
zxing-cpp, Pillow and (for the CairoSVG renderer) cairosvg, listed in Tests/compat/requirements.txt.

As a script: `python3 qr_decode.py FILE.svg` prints the decoded text.
"""

import io
import re
import sys

from PIL import Image, ImageDraw
import zxingcpp

# Pixels per module in the rendered bitmap: enough for the reader, small enough for version 40 symbols.
_SCALE = 4


class QRDecodeError(Exception):
    """The SVG could not be rendered or held no readable QR code."""


def decode_svg(svg_text, renderer="auto"):
    """Returns the text of the one QR code in `svg_text`.

    `renderer` is "cairo" (CairoSVG), "path" (our own <path> drawn with Pillow), or "auto": CairoSVG when it and
    libcairo2 can be loaded, otherwise "path".
    """
    if renderer == "auto":
        renderer = "cairo" if _cairosvg() is not None else "path"
    if renderer == "cairo":
        image = _render_with_cairo(svg_text)
    elif renderer == "path":
        image = _render_path(svg_text)
    else:
        raise ValueError(f"unknown renderer {renderer!r}")
    results = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    if len(results) != 1:
        raise QRDecodeError(f"expected one QR code, found {len(results)}")
    return results[0].text


def _cairosvg():
    try:
        import cairosvg
    except (ImportError, OSError):  # OSError: the package is there but libcairo2 is not
        return None
    return cairosvg


def _view_box(svg_text):
    match = re.search(r'viewBox="0 0 (\d+) (\d+)"', svg_text)
    if match is None:
        raise QRDecodeError("no viewBox of the form '0 0 W H'")
    return int(match.group(1)), int(match.group(2))


def _render_with_cairo(svg_text):
    cairosvg = _cairosvg()
    if cairosvg is None:
        raise QRDecodeError("cairosvg or libcairo2 is not installed")
    width, height = _view_box(svg_text)
    png = cairosvg.svg2png(
        bytestring=svg_text.encode("utf-8"),
        output_width=width * _SCALE,
        output_height=height * _SCALE,
        background_color="white",
    )
    return Image.open(io.BytesIO(png)).convert("L")


def _render_path(svg_text):
    """Draws the one <path> of our SVG on a white background the size of the viewBox. Its subpaths are
    rectangles: an absolute M, then relative h and v moves, closed by z."""
    width, height = _view_box(svg_text)
    paths = re.findall(r'<path[^>]*\sd="([^"]*)"', svg_text)
    if len(paths) != 1:
        raise QRDecodeError(f"expected one <path>, found {len(paths)}")
    image = Image.new("L", (width * _SCALE, height * _SCALE), 255)
    draw = ImageDraw.Draw(image)
    tokens = iter(re.findall(r"[A-Za-z]|-?\d+", paths[0]))
    corners = []
    for token in tokens:
        if token == "M":
            corners = [(int(next(tokens)), int(next(tokens)))]
        elif token in ("h", "v"):
            x, y = corners[-1]
            step = int(next(tokens))
            corners.append((x + step, y) if token == "h" else (x, y + step))
        elif token in ("z", "Z"):
            xs = {x for x, _ in corners}
            ys = {y for _, y in corners}
            if len(corners) != 4 or len(xs) != 2 or len(ys) != 2:
                raise QRDecodeError(f"subpath is not a rectangle: {corners}")
            draw.rectangle(
                (min(xs) * _SCALE, min(ys) * _SCALE, max(xs) * _SCALE - 1, max(ys) * _SCALE - 1), fill=0
            )
        else:
            raise QRDecodeError(f"unexpected path command {token!r}")
    return image


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as file:
        print(decode_svg(file.read()))
