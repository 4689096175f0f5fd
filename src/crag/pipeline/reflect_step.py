"""The `reflect` node of `mode="self-crag"`: check the answer, choose the next step.

It calls the `Reflector` and the `ReflectPolicy` and returns the updated `ReflectionRecord`
in its trace part; the graph's conditional edge only reads `state["route"]`. The first call
decides (auto) whether reflection runs at all. Each call is one round; a round at
`policy.max_steps` finishes whatever the route, with the best attempt so far and the
`step_limit` flag. Finishing replaces `generated` with what the user should read
(`crag.reflect.finalize`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from crag.modes import Mode
from crag.pipeline.stage import stage
from crag.pipeline.state import Components, CragState
from crag.reflect import best_attempt, finalize
from crag.trace import ClaimRecord, ReflectionRecord, ReflectionRound, TracePart

__all__ = ["reflect"]


def reflect(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    record = state["trace"].reflection
    generated = state["generated"]
    attempts = list(state.get("attempts") or [])
    if c.reflector is None:
        raise ValueError(f"mode '{Mode.SELF_CRAG}' needs a reflector in the components")
    if not attempts or record is None:
        run, why = c.policy.should_reflect(state.get("verdict"), generated)
        record = ReflectionRecord(ran=run, why=why, mode=c.policy.when)
        if not run:
            return {"route": "finish", "trace": TracePart(reflection=record)}
    steps = state.get("steps", 0) + 1
    regenerations = state.get("regenerations", 0)
    with stage("reflect") as log:
        reflection = c.reflector.reflect(state["question"], generated)
    attempts.append((generated, reflection))
    route, why = c.policy.route(
        reflection,
        regenerations=regenerations,
        web_done=bool(state.get("web_done")),
        web_available=c.web is not None,
    )
    notes = []
    step_limit = record.step_limit
    if route != "finish" and steps >= c.policy.max_steps:
        route, why = "finish", f"step limit {c.policy.max_steps} reached (wanted: {route}, {why})"
        step_limit = True
        notes.append(f"self-reflection stopped at its step limit ({c.policy.max_steps})")
    checked = ReflectionRound(
        round=steps,
        answer=generated.text,
        refusal=reflection.refusal,
        grounded=reflection.grounded,
        useful=reflection.useful,
        usefulness=reflection.usefulness,
        claims=[
            ClaimRecord(
                sentence=claim.sentence,
                cited=list(claim.cited),
                score=claim.score,
                supported=claim.supported,
            )
            for claim in reflection.claims
        ],
        route=route,
        why=why,
    )
    changes: dict[str, object] = {"rounds": [*record.rounds, checked], "step_limit": step_limit}
    update: CragState = {"attempts": attempts, "steps": steps, "route": route}
    if route == "regenerate":
        update["regenerations"] = regenerations + 1
        update["feedback"] = "; ".join(f'"{claim}"' for claim in reflection.unsupported)
    elif route == "web_search":
        update["feedback"] = ""
    else:
        chosen, checks = best_attempt(attempts)
        final, how = finalize(chosen, checks)
        changes.update(
            final=how,
            chosen_round=attempts.index((chosen, checks)) + 1,
            regenerations=regenerations,
            web=bool(state.get("web_done")),
        )
        update["generated"] = final
    records = TracePart(reflection=record.model_copy(update=changes), notes=notes)
    update["trace"] = log.part(records)
    return update
