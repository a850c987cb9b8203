"""Named placeholders in every help (FILE, CHANNEL, DURATION, …): typer writes `<str>`
for every text option and `{file}` for a required argument."""

from __future__ import annotations

from typing import Any

# The placeholder of each option and argument in the help, by parameter name (typer's
# own is `<str>` for every text): what a user types there.
PLACEHOLDERS = {
    "file": "FILE", "files": "FILE...", "src": "FILE", "dst": "OUTPUT", "output": "FILE",
    "channel": "CHANNEL", "tick": "DURATION", "nominal": "FREQUENCY",
    "quantiles": "QUANTILES", "format": "FORMAT", "latency": "A:B", "opt": "KEY=VALUE",
    "plot": "DIR", "first_level": "0|1", "edge": "rising|falling|both",
    "kind": "hist|cdf|trend", "metric": "METRIC", "extremes": "N",
    "start": "TIME|EDGE", "end": "TIME|EDGE", "store": "DIR", "spec": "FILE",
}  # fmt: skip


def named_placeholders(cmd: Any) -> Any:
    """`cmd` (a click command or group) with every option and argument that takes a
    value showing a named placeholder (FILE, CHANNEL, DURATION, …) instead of `<str>`."""
    # by duck type: typer may carry its own copy of click's classes
    for p in cmd.params:
        if getattr(p, "is_flag", False) or getattr(p, "count", False):
            continue
        if p.metavar is None or p.metavar.startswith("<"):
            name = p.name or ""
            p.metavar = PLACEHOLDERS.get(name, name.upper())
        if p.param_type_name == "argument":
            # usage as the shell tools write it: FILE, [FILE], FILE... (typer: {FILE})
            shown = p.metavar + ("..." if p.nargs != 1 and "..." not in p.metavar else "")
            shown = shown if p.required else f"[{shown}]"
            p.make_metavar = lambda ctx=None, usage=False, _s=shown: _s
    for sub in getattr(cmd, "commands", {}).values():
        named_placeholders(sub)
    return cmd
