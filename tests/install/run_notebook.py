"""Runs the notebook example's code cells (examples/notebooks/kvplan_tour.ipynb) as the notebook
would, printing each cell's output and the repr of its last expression, without Jupyter: the wheel
test compares this output between the build tree's module and the installed wheel's.
Run: python run_notebook.py NOTEBOOK"""
import ast
import json
import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
cells = [c for c in json.load(open(sys.argv[1], encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
ns = {"__name__": "__main__"}
for i, c in enumerate(cells):
    tree = ast.parse("".join(c["source"]))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, f"cell{i}", "exec"), ns)
    if last is not None:
        v = eval(compile(ast.Expression(last.value), f"cell{i}", "eval"), ns)
        if v is not None and not type(v).__module__.startswith("matplotlib"):
            print(repr(v))
    print(f"--- cell {i}")
