"""Write a net's whole recipe chain into its own weights file, so that ``tavli-train
--recipe`` prints it from that file alone (the earlier nets need not be installed):

    python nets/embed_chain.py src/tavli_fast/data/neural-v17-320.npz

The chain is that of the net the file started from (its ``training.start``), found beside
the file or installed (the package's data, then ``tavli_fast_nets``: ``pip install ./nets``
first), each step as ``tavli_fast.recipes.ancestors`` records it; it goes into the file's
``training.ancestors``. The arrays are written back byte-identical: the file's ``sha256``
(over the arrays) must not change, and this checks it, and that the chain read from the file
alone (no other net installed) is the one the files give. Run it for each new default.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from unittest import mock

import numpy as np

from tavli_fast.training import recipes
from tavli_fast.run.atomic import atomic_file
from tavli_fast.play.neural import load_net, weights_checksum


def read(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """The file's arrays (in its order) and its metadata."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: np.array(z[k]) for k in z.files if k != "meta"}
        meta = json.loads(str(z["meta"]))
    return arrays, meta


def embed(path: Path) -> list[recipes.RecipeStep]:
    """Embed the chain in the file at `path`; its chain, from the files."""
    arrays, meta = read(path)
    load_net(path)  # a sound weights file, its checksum verified
    start = meta["training"]["start"]
    beside = path.parent / start["file"]
    records = recipes.ancestors(start, beside if beside.is_file() else None)
    meta["training"] = {**meta["training"], "ancestors": records}
    with atomic_file(path, readable=True) as f:
        np.savez(f, **arrays, meta=np.array(json.dumps(meta)))

    again, new_meta = read(path)
    assert list(again) == list(arrays), "the arrays' names or order changed"
    for key, a in arrays.items():
        b = again[key]
        assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes()), key
    assert new_meta["sha256"] == meta["sha256"] == weights_checksum(tuple(again.values()))
    chain = recipes.training_chain(path)  # the files (where installed), checked against it
    with mock.patch.object(recipes, "installed_net", lambda name: None):
        alone = recipes.training_chain(path)  # the file alone
    assert alone == chain and [recipes.step_record(s) for s in chain[:-1]] == records
    return chain


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("weights", nargs="+", type=Path, help="weights files to rewrite")
    for path in p.parse_args(argv).weights:
        chain = embed(path)
        print(f"{path.name}: {len(chain) - 1} earlier nets embedded "
              f"({chain[0].version} .. {chain[-2].version}); sha256 {chain[-1].sha256[:12]}... "
              "unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
