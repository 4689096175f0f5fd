"""The `reflect` node of `mode="self-crag"`: check the answer, choose the next step.

It calls the `Reflector` and the `ReflectPolicy` and records everything in
`trace.reflection`; the graph's conditional edge only reads `state["route"]`. The first call
decides (auto) whether reflection runs at all. Each call is one round; a round at
`policy.max_steps` finishes whatever the route, with the best attempt so far and the
`step_limit` flag. Finishing replaces `generated` with what the user should read
(`crag.reflect.finalize`).
"""

from __future__ import annotations

from typing import Any

from crag.modes import Mode
from crag.pipeline.stage import stage
from crag.pipeline.state import Components, CragState
from crag.reflect import best_attempt, finalize

__all__ = ["reflect_step"]


def reflect_step(c: Components, state: CragState) -> dict[str, Any]:
    trace = state["trace"]
    record = trace.reflection
    generated = state["generated"]
    attempts = list(state.get("attempts") or [])
    if c.reflector is None:
        raise ValueError(f"mode '{Mode.SELF_CRAG}' needs a reflector in the components")
    if not attempts:
        run, why = c.policy.should_reflect(state.get("verdict"), generated)
        record.update({"ran": run, "why": why, "mode": c.policy.when, "rounds": []})
        if not run:
            return {"route": "finish"}
    steps = state.get("steps", 0) + 1
    regenerations = state.get("regenerations", 0)
    with stage(trace, "reflect"):
        reflection = c.reflector.reflect(state["question"], generated)
    attempts.append((generated, reflection))
    route, why = c.policy.route(
        reflection,
        regenerations=regenerations,
        web_done=bool(state.get("web_done")),
        web_available=c.web is not None,
    )
    if route != "finish" and steps >= c.policy.max_steps:
        route, why = "finish", f"step limit {c.policy.max_steps} reached (wanted: {route}, {why})"
        record["step_limit"] = True
        trace.notes.append(f"self-reflection stopped at its step limit ({c.policy.max_steps})")
    record["rounds"].append(
        {
            "round": steps,
            "answer": generated.text,
            **reflection.to_dict(),
            "route": route,
            "why": why,
        }
    )
    update: dict[str, Any] = {"attempts": attempts, "steps": steps, "route": route}
    if route == "regenerate":
        update["regenerations"] = regenerations + 1
        update["feedback"] = "; ".join(f'"{claim}"' for claim in reflection.unsupported)
    elif route == "web_search":
        update["feedback"] = ""
    else:
        chosen, checks = best_attempt(attempts)
        final, how = finalize(chosen, checks)
        record.update(
            {
                "final": how,
                "chosen_round": attempts.index((chosen, checks)) + 1,
                "regenerations": regenerations,
                "web": bool(state.get("web_done")),
            }
        )
        record.setdefault("step_limit", False)
        update["generated"] = final
    return update
