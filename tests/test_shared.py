"""The helpers every reader shares: a never-raising getattr, ASCII-only lowering, a bounded memo."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agenterr._shared import BoundedCache, ascii_lower, attr


class _Hostile:
    @property
    def boom(self) -> object:
        raise RuntimeError("no")

    def __getattr__(self, name: str) -> object:
        raise ValueError(name)


def test_attr_reads_or_gives_none() -> None:
    assert attr(3, "real") == 3
    assert attr(object(), "missing") is None
    assert attr(_Hostile(), "boom") is None
    assert attr(_Hostile(), "anything") is None


def test_ascii_lower_lowers_a_to_z_only() -> None:
    assert ascii_lower("Rate LIMIT") == "rate limit"
    assert ascii_lower("İSTANBUL Ä") == "İstanbul Ä"  # str.lower would give "i̇stanbul ä"
    assert ascii_lower("\u212a") == "\u212a"  # KELVIN SIGN: str.lower gives ASCII "k"


@given(st.text())
def test_ascii_lower_keeps_length_and_non_ascii(text: str) -> None:
    lowered = ascii_lower(text)
    assert len(lowered) == len(text)
    for before, after in zip(text, lowered, strict=True):
        assert after == (before.lower() if "A" <= before <= "Z" else before)


def test_bounded_cache_stops_growing_at_its_limit() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    assert cache.remember("a", 1) == 1
    assert cache.remember("b", 2) == 2
    assert cache.remember("c", 3) == 3  # still returned, not stored
    assert dict(cache) == {"a": 1, "b": 2}
    assert cache.get("c") is None
    assert cache.remember("a", 9) == 9 and cache["a"] == 1  # full: nothing is overwritten
