"""What every ``mcptest serve`` server shares, whatever answers its calls (a recording,
a scenario's world): the ``--fault`` on ``tools/call``, taken as ``mcptest mock`` takes it.
The transports (stdio, Streamable HTTP) are run by ``replay_server``'s helpers."""

from __future__ import annotations

from typing import Optional


async def tool_fault(fault, number: int, who: str = "mcptest serve") -> Optional[dict]:
    """Apply ``fault`` to the ``number``-th tools/call (from 1): hang for ever, sleep, or
    answer an MCP tool error (returned); None when the call is to be answered as usual."""
    if fault is None:
        return None
    import anyio

    if fault.kind == "hang":
        await anyio.sleep_forever()
    if fault.kind == "slow":
        await anyio.sleep(fault.value / 1000.0)
    if fault.kind == "recover-after" and number <= fault.value:
        return {"content": [{"type": "text", "text": f"{who} fault recover-after:{fault.value}: "
                             f"call {number} of the first {fault.value} fails"}], "isError": True}
    return None
