"""Hypothesis strategies shared by the property tests."""

from hypothesis import strategies as st

statuses = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.integers(min_value=100, max_value=599),
    st.booleans(),
    st.none(),
    st.text(max_size=5),
    st.floats(allow_nan=True),
    st.binary(max_size=4),
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)

bodies = st.one_of(
    st.text(max_size=2000),
    st.binary(max_size=2000),
    st.none(),
    json_values,
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.sampled_from(["\x1b[31m", "\u202e", "\u200b", "sk-" + "a" * 30, "\r\n\t"]).map(
        lambda s: s * 50
    ),
)

header_values = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40),
    st.integers(),
    st.floats(),
    st.sampled_from(["0", "1.5", "120", "Sun, 06 Nov 1994 08:49:37 GMT", "-1", "nan", "9" * 30]),
)
header_names = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["Retry-After", "retry-after-ms", "X-MS-Retry-After-Ms", "retry-after"]),
)
headers = st.one_of(
    st.none(),
    st.dictionaries(header_names, header_values, max_size=6),
    st.lists(st.tuples(header_names, header_values), max_size=6),
    st.text(max_size=10),
    st.integers(),
)


class EvilError(Exception):
    """An exception whose __str__ raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def _chained(depth: int, cyclic: bool) -> BaseException:
    head: BaseException = TimeoutError("root")
    first = head
    for i in range(depth):
        nxt = RuntimeError(str(i))
        nxt.__cause__ = head
        head = nxt
    if cyclic:
        first.__context__ = head
    return head


errors = st.one_of(
    st.none(),
    st.sampled_from(
        [ValueError("x"), TimeoutError(), ConnectionResetError(), EvilError(), KeyboardInterrupt()]
    ),
    st.builds(_chained, st.integers(min_value=0, max_value=200), st.booleans()),
    st.text(max_size=5),
    st.integers(),
)
