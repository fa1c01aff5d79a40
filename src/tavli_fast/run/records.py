"""Results as tables: every result type gives its figures as flat rows (``to_records``), and
as a pandas DataFrame when pandas is installed (``to_dataframe``)."""

from __future__ import annotations

from typing import Any

__all__ = ["TableExport", "flat_row"]


def flat_row(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``doc`` with its nested dicts spread out: ``{"se": {"win": x}}`` -> ``{"se_win": x}``."""
    row: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            row.update(flat_row(value, f"{prefix}{key}_"))
        else:
            row[f"{prefix}{key}"] = value
    return row


class TableExport:
    """Gives a result with ``to_dict()`` a table form: ``to_records()`` (by default one row,
    the result's JSON document with its nested dicts spread out; results made of several
    items, such as plays, give a row an item) and ``to_dataframe()``."""

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every result defines it
        raise NotImplementedError

    def to_records(self) -> list[dict[str, Any]]:
        """The result as flat rows (dicts of JSON values)."""
        return [flat_row(self.to_dict())]

    def to_dataframe(self) -> Any:
        """The records as a pandas DataFrame (ImportError naming the package without pandas)."""
        try:
            import pandas  # optional: only this method needs it
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas "
                              "(to_records() gives the same rows without it)") from None
        return pandas.DataFrame(self.to_records())
