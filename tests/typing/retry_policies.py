"""Never run: the one-line retry policies keep the decorated function's type under tenacity
and stamina (mypy --strict, pyright)."""

from __future__ import annotations

from typing import assert_type

import stamina
import tenacity

from agenterr import classified_tool
from agenterr.integrations import stamina as agenterr_stamina
from agenterr.integrations import tenacity as agenterr_tenacity


@tenacity.retry(**agenterr_tenacity.retry_policy(max_wait=30))
@classified_tool(raises=True)
def get_rate(currency: str) -> float:
    return 1.0


assert_type(get_rate("EUR"), float)


@tenacity.retry(**agenterr_tenacity.retry_policy(max_wait=30, attempts=3), before_sleep=None)
async def get_rate_async(currency: str) -> float:
    return 1.0


async def use_async() -> None:
    assert_type(await get_rate_async("EUR"), float)


for attempt in tenacity.Retrying(**agenterr_tenacity.retry_policy()):
    with attempt:
        pass


@stamina.retry(**agenterr_stamina.retry_policy(max_wait=30), wait_initial=0.5)
@classified_tool(raises=True)
def get_quote(symbol: str) -> int:
    return 1


assert_type(get_quote("X"), int)

for stamina_attempt in stamina.retry_context(**agenterr_stamina.retry_policy(max_wait=10)):
    with stamina_attempt:
        pass
