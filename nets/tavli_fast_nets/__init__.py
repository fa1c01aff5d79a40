"""The earlier nets of tavli_fast: every default before the shipped one, and the nets
between them, kept so that results made with them can be repeated. tavli_fast finds them
here by their bare file names (``neural-v5.npz``, say); nothing is downloaded.

Install from the tavli_fast checkout: ``pip install ./nets``.
"""

from pathlib import Path

__all__ = ["FOLDER"]

#: The folder that holds the weights files (``neural-v*.npz``).
FOLDER = Path(__file__).resolve().parent
