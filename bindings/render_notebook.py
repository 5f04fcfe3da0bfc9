#!/usr/bin/env python3
"""Execute a notebook with nbclient and write a Markdown copy with its plots as PNG files.

    PYTHONPATH=build/python /usr/bin/python3 bindings/render_notebook.py \
        examples/notebooks/kvplan_tour.ipynb docs/kvplan_tour.md

Images go to <out stem>_files/ next to the Markdown. Exits non-zero if a cell fails.
"""
import base64
import pathlib
import sys

import nbclient
import nbformat


def execute(path, timeout=300):
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(pathlib.Path(path).parent)}})
    client.execute()
    return nb


def to_markdown(nb, out_md):
    out_md = pathlib.Path(out_md)
    img_dir = out_md.parent / (out_md.stem + "_files")
    img_dir.mkdir(parents=True, exist_ok=True)
    for old in img_dir.glob("*.png"):
        old.unlink()
    parts, images = [], []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        parts.append("```python\n" + cell.source + "\n```")
        for j, out in enumerate(cell.get("outputs", [])):
            if out.output_type == "stream":
                parts.append("```text\n" + out.text.rstrip("\n") + "\n```")
            elif out.output_type in ("execute_result", "display_data"):
                data = out.get("data", {})
                if "image/png" in data:
                    name = f"cell{i:02d}_{j}.png"
                    (img_dir / name).write_bytes(base64.b64decode(data["image/png"]))
                    images.append(img_dir / name)
                    parts.append(f"![output of cell {i}]({img_dir.name}/{name})")
                elif "text/plain" in data:
                    parts.append("```text\n" + data["text/plain"].rstrip("\n") + "\n```")
            elif out.output_type == "error":
                parts.append("```text\n" + "\n".join(out.traceback) + "\n```")
    header = ("<!-- Rendered from examples/notebooks/kvplan_tour.ipynb by bindings/render_notebook.py; "
              "do not edit by hand. -->\n\n")
    out_md.write_text(header + "\n\n".join(parts) + "\n")
    return images


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    nb = execute(argv[1])
    images = to_markdown(nb, argv[2])
    print(f"wrote {argv[2]} and {len(images)} PNG plots")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
