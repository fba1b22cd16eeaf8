"""Whole models on tilec's kernels: tilec.models.llama (docs/models.md).

The kernels are the TileIR files of the checkout's models/ directory, or
of $TILEC_MODELS when it is set."""
import os


def kernel_dir(family):
    """The directory of a model family's .tir kernels (models/FAMILY)."""
    root = os.environ.get("TILEC_MODELS") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "models")
    path = os.path.join(root, family)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"tilec.models: no kernels at {path} (set TILEC_MODELS to the models/ directory)")
    return path
