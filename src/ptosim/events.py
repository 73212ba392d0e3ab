"""The event log an observer may take its frequent events through.

An observer with an ``event_log`` attribute (a list; the hazard checker has one) is told
about buffer accesses, op starts and ends and flags by entries appended to that list by
the Machine and the executor, instead of calls to its ``access`` / ``begin_op`` /
``end_op`` / ``set_flag`` / ``wait_flag`` methods: an append costs a fraction of a Python
call. The observer reads the entries in order (its ``flush``) when it needs them, and at
the latest when the log holds ``FLUSH_AT`` entries. Each entry is a tuple whose first item
is its tag:

- ``(ACCESS, buffer, start, nbytes, access, runs)``: one access of the current op, as
  ``Machine.access_hook`` gets it (without operand and op names);
- ``(BEGIN, core, op, spec, pipe)``: ``op`` starts on ``pipe`` of ``core``;
- ``END_ENTRY`` (``(END,)``): the op ends (from ``end_op``);
- ``(SET_FLAG | WAIT_FLAG, core, src, dst, event, op)``.

The executor logs an op's end by omission: it points the Machine's ``access_log`` at the
log only while the op runs, and the Machine's ``access_hook`` is `ignore_access` in the
meantime, so accesses outside an op are dropped as an observer that knows no current op
drops them.

An op or a flag that runs again and again on one core can be told by a handle instead: the
observer's ``op_handle(core, op, spec, pipe)`` / ``flag_handle(core, src, dst, event, op,
setting)`` return an entry (its first item ``OP_HANDLE``, ``SET_HANDLE`` or
``WAIT_HANDLE``; ``flag_handle`` may return None: then use the plain entry) that the
executor keeps per (core, op) and appends as it is each time: the observer derived what it
needs from the op once, when it made the handle.
"""

from __future__ import annotations

ACCESS, BEGIN, END, SET_FLAG, WAIT_FLAG, OP_HANDLE, SET_HANDLE, WAIT_HANDLE = range(8)
END_ENTRY = (END,)
FLUSH_AT = 512      # entries: a batch stays small (memory) and is read in one loop


def ignore_access(*args: object) -> None:
    """The Machine's access hook between the ops of a run told through the log."""


def event_log(observer: object) -> list[tuple] | None:
    """The observer's own ``event_log`` list, or None (an attribute the observer set
    itself: a forwarding wrapper answering any name does not count)."""
    log = getattr(observer, "__dict__", {}).get("event_log")
    return log if isinstance(log, list) else None
