"""The playground's model presets (playground/app.js, PRESETS), each an assistant turn rendered
through that model's own chat template (../shared/chat-templates/, or $BEACON_CHAT_TEMPLATES) with
jinja2, by tests/fixtures/_render.py's `assistant_turn`: the text the model is trained to write.

tests/browser/test_playground_presets.py checks that each preset in the page is exactly this
rendering, and what it parses to. To change a preset, change it here and paste what

    .venv/bin/python tests/browser/model_presets.py

prints into app.js.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))


class ModelPreset(NamedTuple):
    key: str  # PRESETS key and data-preset of the button
    label: str  # the button's text
    template: str  # ../shared/chat-templates/<template>.jinja
    render: Dict[str, Any]  # assistant_turn's arguments
    calls: List[Dict[str, Any]]  # what parseToolCalls returns, with includeFormat
    content: str  # parseMessage's content
    reasoning: Optional[str]  # parseMessage's reasoning


PARIS = {"city": "Paris", "unit": "celsius"}
TOKYO = {"city": "Tokyo", "unit": "celsius"}
BOTH = [("get_weather", PARIS), ("get_weather", TOKYO)]

MODEL_PRESETS = [
    ModelPreset(
        "deepseek_v31", "DeepSeek V3.1", "deepseek-ai-DeepSeek-V3.1",
        {"calls": BOTH, "content": "I'll check both cities."},
        [{"name": "get_weather", "arguments": PARIS, "format": "deepseek_v31"},
         {"name": "get_weather", "arguments": TOKYO, "format": "deepseek_v31"}],
        "I'll check both cities.", None,
    ),
    ModelPreset(
        # The template writes the turn's content as an analysis message (reasoning) before the call.
        "gpt_oss", "gpt-oss", "openai-gpt-oss-120b",
        {"calls": [("get_weather", PARIS)], "content": "The user asks for the weather in Paris. Call get_weather."},
        [{"name": "get_weather", "arguments": PARIS, "format": "harmony"}],
        "", "The user asks for the weather in Paris. Call get_weather.",
    ),
    ModelPreset(
        "kimi_k2", "Kimi K2", "moonshotai-Kimi-K2",
        {"calls": BOTH, "content": "Let me check both cities."},
        [{"id": "functions.get_weather:0", "name": "get_weather", "arguments": PARIS, "format": "kimi_k2"},
         {"id": "functions.get_weather:1", "name": "get_weather", "arguments": TOKYO, "format": "kimi_k2"}],
        "Let me check both cities.", None,
    ),
    ModelPreset(
        "glm46", "GLM 4.6", "GLM-4.6",
        {"calls": [("get_weather", {"city": "Paris", "days": 3}), ("get_time", {"tz": "Europe/Paris"})],
         "content": "I'll look up the weather and the time.", "reasoning": "The user wants the weather in Paris."},
        [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}, "format": "glm45"},
         {"name": "get_time", "arguments": {"tz": "Europe/Paris"}, "format": "glm45"}],
        "I'll look up the weather and the time.", "The user wants the weather in Paris.",
    ),
    ModelPreset(
        "qwen3_coder", "Qwen3-Coder", "Qwen3-Coder",
        {"calls": [("run_tests", {"path": "tests/test_api.py", "k": "login and not slow", "maxfail": 1})],
         "content": "I'll run the failing tests first."},
        [{"name": "run_tests", "arguments": {"path": "tests/test_api.py", "k": "login and not slow", "maxfail": 1},
          "format": "qwen3_coder"}],
        "I'll run the failing tests first.", None,
    ),
    ModelPreset(
        "gemma4", "Gemma 4", "google-gemma-4-31B-it",
        {"calls": BOTH, "content": "I'll check both cities.", "reasoning": "Two cities, two calls.",
         "enable_thinking": True},
        [{"name": "get_weather", "arguments": PARIS, "format": "gemma4"},
         {"name": "get_weather", "arguments": TOKYO, "format": "gemma4"}],
        "I'll check both cities.", "\nTwo cities, two calls.\n",
    ),
]


def rendered(preset: ModelPreset) -> str:
    """The preset's text: its assistant turn, rendered through its template."""
    from _render import assistant_turn

    return assistant_turn(preset.template, **preset.render)


def js_literal(text: str) -> str:
    """`text` as a JavaScript string literal (JSON's, which JavaScript reads the same)."""
    return json.dumps(text, ensure_ascii=False)


if __name__ == "__main__":
    for p in MODEL_PRESETS:
        print(f"  // Rendered through shared/chat-templates/{p.template}.jinja (tests/browser/model_presets.py).")
        print(f"  {p.key}: {js_literal(rendered(p))},")
