"""``mcptest mock --tools-from FILE``: a real MCP server over stdio from a manifest or a saved
``tools/list`` answer, for tests and examples."""

from __future__ import annotations

def add_parser(sub) -> None:
    mock = sub.add_parser("mock", help="a real MCP server over stdio (newline-delimited JSON-RPC), from a YAML "
                          "manifest or a JSON tools/list snapshot, for tests and examples")
    mock.add_argument("--tools-from", metavar="FILE", required=True,
                      help="a manifest (mock_server: {...}) or a tools/list snapshot")
    mock.add_argument("--fault", metavar="SPEC", default="none",
                      help="on tools/call: none | hang | slow:<ms> | recover-after:<n> (default: none)")
    mock.set_defaults(func=run)


def run(args) -> int:
    """Serve the manifest or snapshot until stdin closes (exit 2 for bad input)."""
    from ..mcp.mock_server import run

    return run(args.tools_from, args.fault)
