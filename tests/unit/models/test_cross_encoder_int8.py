"""The int8 fallback of the cross-encoder (crag.models.cross_encoder._int8): quantised where
torch still has eager quantisation, without its deprecation warning; fp32 where it is gone."""

from __future__ import annotations

import warnings

import pytest
import torch

from crag.models.cross_encoder import _int8


def _model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))


def test_int8_quantises_the_linear_layers_quietly() -> None:
    model = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's DeprecationWarning would fail here
        quantised, precision = _int8(model)
    assert precision == "int8"
    assert quantised is not model and type(quantised[0]) is not torch.nn.Linear
    x = torch.randn(3, 8)
    assert torch.allclose(quantised(x), model(x), atol=0.1)


def test_without_eager_quantisation_the_model_stays_fp32(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(torch.ao.quantization, "quantize_dynamic")  # as a later torch may
    model = _model()
    same, precision = _int8(model)
    assert same is model and precision == "fp32"
