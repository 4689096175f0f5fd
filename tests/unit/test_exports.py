"""The public API is exactly `crag.__all__` (as httpx's test_exports guards its own).

A name added to the package without being listed, or listed without existing, fails here; so
does a public name that is defined outside crag (a re-exported third-party object) or a list
that is not kept sorted.
"""

from __future__ import annotations

import types

import crag


def test_all_is_sorted_and_unique() -> None:
    assert crag.__all__ == sorted(set(crag.__all__))


def test_every_public_name_is_listed_and_every_listed_name_exists() -> None:
    public = {
        name
        for name, value in vars(crag).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)  # subpackages, once imported
        and name not in ("TYPE_CHECKING", "Any", "annotations")
    }
    assert public <= set(crag.__all__)
    for name in crag.__all__:
        assert getattr(crag, name).__module__.startswith("crag."), name
    assert set(crag.__all__) <= set(dir(crag))


def test_the_pipeline_loads_on_first_use() -> None:
    from crag.pipeline import Pipeline, build_pipeline

    assert crag.Pipeline is Pipeline and crag.build_pipeline is build_pipeline


def test_the_error_tree_has_one_root() -> None:
    errors = [getattr(crag, n) for n in crag.__all__ if n.endswith("Error")]
    assert errors and all(issubclass(e, crag.CragError) for e in errors)
