//! The tool list: malformed definitions are errors naming the entry; keywords beacon does not
//! check are listed; and beacon's hand-written schema checks agree with the `jsonschema` crate
//! (the reference validator) on the fixtures' calls, on a corpus of schema/instance pairs that
//! covers every keyword beacon checks, and on random instances.

mod common;

use beacon_core::{
    parse_tool_calls_with, ErrorCode, Number, Object, ParseOptions, Tools, ToolsError, UnknownTools, Value,
};
use proptest::prelude::*;
use serde_json::{json, Value as Json};

fn tools(definitions: Json) -> Result<Tools, ToolsError> {
    Tools::from_value(&common::from_serde(&definitions))
}

fn error(definitions: Json) -> ToolsError {
    tools(definitions).expect_err("the definitions are malformed")
}

// ---- malformed definitions ----------------------------------------------------------------------

#[test]
fn a_malformed_definition_names_its_entry() {
    let cases: Vec<(Json, &str, bool, &str)> = vec![
        (json!({"name": "f"}), "tools", true, "must be a list"),
        (json!([42]), "tools[0]", true, "an object or a name"),
        (json!([{"description": "no name"}]), "tools[0]", false, "needs a `name`"),
        (json!(["ok", {"name": 7}]), "tools[1].name", true, "must be a string"),
        (json!([""]), "tools[0]", false, "empty"),
        (
            json!(["f", {"name": "f"}]),
            "tools[1]",
            false,
            "two tools are named \"f\"",
        ),
        (
            json!([{"name": "f", "parameters": "{}"}]),
            "tools[0].parameters",
            true,
            "must be an object",
        ),
        (
            json!([{"name": "f", "parameters": {}, "input_schema": {}}]),
            "tools[0]",
            false,
            "two schemas",
        ),
        (
            json!([{"type": "function", "function": "f"}]),
            "tools[0].function",
            true,
            "must be an object",
        ),
        (
            json!([{"type": "tool", "function": {"name": "f"}}]),
            "tools[0]",
            false,
            "type \"function\"",
        ),
        (
            json!([{"functionDeclarations": {"name": "f"}}]),
            "tools[0].functionDeclarations",
            true,
            "a list",
        ),
        (
            json!([{"functionDeclarations": [3]}]),
            "tools[0].functionDeclarations[0]",
            true,
            "must be an object",
        ),
        (
            json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"city": {"type": "strng"}}}}}]),
            "tools[0].function parameters schema /properties/city/type",
            false,
            "\"strng\" is not a JSON Schema type",
        ),
        (
            json!([{"name": "f", "input_schema": {"required": "city"}}]),
            "tools[0] input_schema schema /required",
            true,
            "a list of property names",
        ),
        (
            json!([{"name": "f", "inputSchema": {"properties": {"a": {"$ref": "https://example.com/a.json"}}}}]),
            "tools[0] inputSchema schema /properties/a/$ref",
            false,
            "outside the tool definition",
        ),
        (
            json!([{"name": "f", "parameters": {"properties": {"a": {"$ref": "#/$defs/Missing"}}}}]),
            "tools[0] parameters schema /properties/a/$ref",
            false,
            "points to nothing",
        ),
        (
            json!([{"name": "f", "parameters": {"properties": {"a": {"minLength": -1}}}}]),
            "tools[0] parameters schema /properties/a/minLength",
            true,
            "non-negative integer",
        ),
        (
            json!([{"name": "f", "parameters": {"anyOf": []}}]),
            "tools[0] parameters schema /anyOf",
            true,
            "non-empty list",
        ),
    ];
    for (definitions, entry, wrong_type, words) in cases {
        let e = error(definitions.clone());
        assert_eq!(e.entry, entry, "{definitions}: {e}");
        assert_eq!(e.wrong_type, wrong_type, "{definitions}: {e}");
        assert!(e.message.contains(words), "{definitions}: {e}");
        assert_eq!(e.to_string(), format!("{}: {}", e.entry, e.message));
    }
}

#[test]
fn tools_from_json_text() {
    let t = Tools::from_json(r#"["a", {"name": "b", "input_schema": {"type": "object"}}]"#).unwrap();
    assert_eq!(t.iter().map(|t| t.name()).collect::<Vec<_>>(), ["a", "b"]);
    assert!(t.contains("b") && !t.contains("c") && t.len() == 2);
    assert!(t.get("a").unwrap().parameters().is_none());
    let e = Tools::from_json("[\"a\",").unwrap_err();
    assert!(!e.wrong_type && e.message.contains("not valid JSON"), "{e}");
    assert_eq!(
        t,
        Tools::from_json(r#"["a", {"name": "b", "input_schema": {"type": "object"}}]"#).unwrap()
    );
}

#[test]
fn built_in_provider_tools_are_skipped() {
    let t = tools(json!([{"type": "web_search"}, {"type": "file_search", "vector_store_ids": []}, "f"])).unwrap();
    assert_eq!(t.len(), 1);
}

#[test]
fn tools_are_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tools>();
}

#[test]
fn unchecked_keywords_are_listed_not_passed_silently() {
    let t = tools(json!([{"name": "f", "parameters": {
        "type": "object",
        "properties": {
            "a": {"type": "string", "format": "hostname"},
            "b": {"type": "string", "pattern": "^(?=x)"},
            "c": {"if": {"type": "string"}, "then": {"minLength": 2}},
        },
        "unevaluatedProperties": false,
    }}]))
    .unwrap();
    let listed: Vec<(String, String)> = t.unchecked().into_iter().map(|(_, at, k)| (at, k)).collect();
    let has = |at: &str, k: &str| listed.iter().any(|(a, kw)| a == at && kw.starts_with(k));
    assert!(has("/properties/a", "format: hostname"), "{listed:?}");
    assert!(has("/properties/b", "pattern ("), "{listed:?}");
    assert!(has("/properties/c", "if") && has("/properties/c", "then"), "{listed:?}");
    assert!(has("", "unevaluatedProperties"), "{listed:?}");
}

#[test]
fn errors_other_than_schema_have_no_path() {
    let t = tools(json!(["f"])).unwrap();
    let e = parse_tool_calls_with(
        "<tool_call>{\"name\": \"g\"}</tool_call>",
        &ParseOptions::with_tools(&t),
    )
    .unwrap_err();
    assert_eq!((e.code, e.path.as_deref()), (ErrorCode::UnknownTool, None));
    assert!(
        e.to_string()
            .starts_with("tool_call.unknown_tool at byte 20: \"g\" is not in the tool list"),
        "{e}"
    );
    let options = ParseOptions {
        unknown: UnknownTools::Keep,
        ..ParseOptions::with_tools(&t)
    };
    assert_eq!(
        parse_tool_calls_with("<tool_call>{\"name\": \"g\"}</tool_call>", &options).unwrap()[0].name,
        "g"
    );
}

// ---- the differential test against the jsonschema crate ------------------------------------------

/// The schema as the reference validator reads it: beacon's accepted spellings (OpenAPI's
/// upper-case types and `nullable`, the type aliases) rewritten to JSON Schema.
fn normalized(schema: &Json) -> Json {
    match schema {
        Json::Object(o) => {
            let mut out = serde_json::Map::new();
            for (k, v) in o {
                let v = if k == "type" { normal_type(v) } else { normalized(v) };
                out.insert(k.clone(), v);
            }
            if o.get("nullable") == Some(&Json::Bool(true)) {
                if let Some(t) = out.get("type").cloned() {
                    let mut list = match t {
                        Json::Array(items) => items,
                        one => vec![one],
                    };
                    list.push(json!("null"));
                    out.insert("type".into(), Json::Array(list));
                }
            }
            Json::Object(out)
        }
        Json::Array(items) => Json::Array(items.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

fn normal_type(t: &Json) -> Json {
    match t {
        Json::String(s) => {
            let lower = s.to_ascii_lowercase();
            let name = match lower.as_str() {
                "float" => "number",
                "int" => "integer",
                "bool" => "boolean",
                "str" => "string",
                "dict" => "object",
                "list" => "array",
                other => other,
            };
            json!(name)
        }
        Json::Array(items) => Json::Array(items.iter().map(normal_type).collect()),
        other => other.clone(),
    }
}

fn to_serde(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(Number::Int(i)) => json!(i),
        Value::Number(Number::BigInt(s)) => serde_json::from_str(s).expect("an integer"),
        Value::Number(Number::Float(f)) => json!(f),
        Value::String(s) => Json::String(s.clone()),
        Value::Array(items) => Json::Array(items.iter().map(to_serde).collect()),
        Value::Object(o) => Json::Object(o.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect()),
    }
}

fn reference(schema: &Json) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&normalized(schema))
        .unwrap_or_else(|e| panic!("the reference validator rejects {schema}: {e}"))
}

/// beacon's verdict and the reference's on `instance` (an object of arguments) under `schema`.
fn verdicts(schema: &Json, instance: &Json) -> (Result<(), String>, bool) {
    let t = tools(json!([{"name": "f", "parameters": schema}])).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let Value::Object(arguments) = common::from_serde(instance) else {
        panic!("arguments are an object: {instance}")
    };
    let ours = t
        .get("f")
        .unwrap()
        .validate(&arguments)
        .map_err(|v| format!("{} at {:?}: {}", v.keyword, v.path, v.message));
    (ours, reference(schema).is_valid(instance))
}

/// Schemas with instances on both sides of each keyword beacon checks.
fn corpus() -> Vec<(Json, Vec<Json>)> {
    let p = |schema: Json| json!({"type": "object", "properties": {"x": schema}});
    let xs = |values: Vec<Json>| values.into_iter().map(|v| json!({ "x": v })).collect::<Vec<_>>();
    vec![
        (
            p(json!({"type": "integer"})),
            xs(vec![json!(1), json!(1.0), json!(1.5), json!("1"), json!(null)]),
        ),
        (
            p(json!({"type": "number"})),
            xs(vec![json!(1), json!(-2.5), json!(true), json!([1])]),
        ),
        (
            p(json!({"type": ["string", "null"]})),
            xs(vec![json!("a"), json!(null), json!(0)]),
        ),
        (
            p(json!({"type": "boolean"})),
            xs(vec![json!(true), json!("true"), json!(0)]),
        ),
        (p(json!({"type": "array"})), xs(vec![json!([]), json!({}), json!("[]")])),
        (
            p(json!({"type": "object"})),
            xs(vec![json!({}), json!([]), json!(null)]),
        ),
        (p(json!({"type": "STRING"})), xs(vec![json!("a"), json!(1)])),
        (
            p(json!({"type": "INTEGER", "nullable": true})),
            xs(vec![json!(null), json!(3), json!("3")]),
        ),
        (p(json!({"type": "float"})), xs(vec![json!(2.75), json!(3), json!("3")])),
        (
            p(json!({"enum": ["a", 1, null, {"k": [1]}]})),
            xs(vec![
                json!("a"),
                json!(1.0),
                json!(null),
                json!({"k": [1]}),
                json!("b"),
                json!({"k": [2]}),
            ]),
        ),
        (
            p(json!({"const": {"a": [1, 2]}})),
            xs(vec![json!({"a": [1, 2]}), json!({"a": [2, 1]})]),
        ),
        (
            p(json!({"minimum": 1, "maximum": 3})),
            xs(vec![json!(1), json!(3), json!(0), json!(3.5), json!("9")]),
        ),
        (
            p(json!({"exclusiveMinimum": 1, "exclusiveMaximum": 3})),
            xs(vec![json!(1), json!(2), json!(3), json!(2.99)]),
        ),
        (
            p(json!({"multipleOf": 0.5})),
            xs(vec![json!(1.5), json!(2), json!(0.3)]),
        ),
        (p(json!({"multipleOf": 3})), xs(vec![json!(9), json!(10), json!(-3)])),
        (
            p(json!({"minLength": 2, "maxLength": 3})),
            xs(vec![json!("ab"), json!("abcd"), json!("a"), json!("é☀️"), json!(5)]),
        ),
        (
            p(json!({"pattern": "^[0-9]{5}$"})),
            xs(vec![json!("10001"), json!("1000"), json!("x10001")]),
        ),
        (p(json!({"pattern": "b+"})), xs(vec![json!("abbc"), json!("ac")])),
        (
            p(json!({"format": "date"})),
            xs(vec![
                json!("2024-02-29"),
                json!("2023-02-29"),
                json!("2024-13-01"),
                json!("24-01-01"),
            ]),
        ),
        (
            p(json!({"format": "date-time"})),
            xs(vec![
                json!("2024-01-01T10:00:00Z"),
                json!("2024-01-01T10:00:00+02:00"),
                json!("2024-01-01T25:00:00Z"),
                json!("2024-01-01 10:00:00Z"),
                json!("2024-01-01T10:00:00"),
            ]),
        ),
        (
            p(json!({"format": "time"})),
            xs(vec![
                json!("10:00:00Z"),
                json!("10:00:00.5-01:30"),
                json!("10:00"),
                json!("10:00:00"),
            ]),
        ),
        (
            p(json!({"format": "email"})),
            xs(vec![
                json!("a@example.com"),
                json!("a@b"),
                json!("nope"),
                json!("a b@c.d"),
            ]),
        ),
        (
            p(json!({"format": "uuid"})),
            xs(vec![
                json!("123e4567-e89b-12d3-a456-426614174000"),
                json!("123e4567e89b12d3a456426614174000"),
                json!("zzze4567-e89b-12d3-a456-426614174000"),
            ]),
        ),
        (
            p(json!({"format": "ipv4"})),
            xs(vec![json!("192.168.0.1"), json!("256.1.1.1"), json!("1.2.3")]),
        ),
        (
            p(json!({"format": "ipv6"})),
            xs(vec![json!("::1"), json!("2001:db8::8a2e:370:7334"), json!("1:2:3")]),
        ),
        (
            p(json!({"items": {"type": "integer"}, "minItems": 1, "maxItems": 2})),
            xs(vec![json!([1]), json!([]), json!([1, 2, 3]), json!([1, "a"])]),
        ),
        (
            p(json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}})),
            xs(vec![json!(["a", 1, true]), json!(["a", "b"]), json!(["a", 1, 2])]),
        ),
        (
            p(json!({"uniqueItems": true})),
            xs(vec![
                json!([1, 2]),
                json!([1, 1.0]),
                json!([[1], [2]]),
                json!([{"a": 1}, {"a": 1}]),
            ]),
        ),
        (
            json!({"type": "object", "required": ["a", "b"]}),
            vec![json!({"a": 1, "b": 2}), json!({"a": 1})],
        ),
        (
            json!({"minProperties": 1, "maxProperties": 2}),
            vec![json!({}), json!({"a": 1}), json!({"a": 1, "b": 2, "c": 3})],
        ),
        (
            json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": false}),
            vec![json!({"a": 1}), json!({"a": 1, "b": 2})],
        ),
        (
            json!({"properties": {"a": {}}, "additionalProperties": {"type": "string"}}),
            vec![json!({"a": 1, "b": "x"}), json!({"b": 2})],
        ),
        (
            json!({"patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": false}),
            vec![json!({"x_a": 1}), json!({"x_a": "1"}), json!({"y": 1})],
        ),
        (
            json!({"propertyNames": {"maxLength": 3}}),
            vec![json!({"abc": 1}), json!({"abcd": 1})],
        ),
        (
            json!({"dependentRequired": {"a": ["b"]}}),
            vec![json!({"a": 1, "b": 2}), json!({"a": 1}), json!({"b": 1})],
        ),
        (
            p(json!({"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string"}]})),
            xs(vec![json!(7), json!(3), json!("3"), json!(null)]),
        ),
        (
            p(json!({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 2}]})),
            xs(vec![json!(1), json!(3), json!(2.5), json!("x")]),
        ),
        (
            p(json!({"allOf": [{"type": "integer"}, {"minimum": 2}]})),
            xs(vec![json!(2), json!(1), json!(2.5)]),
        ),
        (p(json!({"not": {"type": "string"}})), xs(vec![json!(1), json!("a")])),
        (p(json!(false)), xs(vec![json!(1)])),
        (
            json!({"$defs": {"A": {"type": "object", "properties": {"n": {"$ref": "#/$defs/A"}, "v": {"type": "integer"}}}},
                   "properties": {"x": {"$ref": "#/$defs/A"}}}),
            xs(vec![
                json!({"v": 1, "n": {"v": 2, "n": {}}}),
                json!({"n": {"n": {"v": "deep"}}}),
            ]),
        ),
        (
            json!({"definitions": {"Pos": {"type": "integer", "minimum": 0}}, "properties": {"x": {"$ref": "#/definitions/Pos"}}}),
            xs(vec![json!(0), json!(-1)]),
        ),
        (
            json!({"properties": {"x": {"$ref": "#/properties/y"}, "y": {"type": "integer"}}}),
            vec![json!({"x": 1}), json!({"x": "1"})],
        ),
        (
            json!({"$ref": "#", "properties": {"x": {"type": "string"}}}),
            vec![json!({"x": "a"}), json!({"x": 1})],
        ),
    ]
}

/// Where the reference validator is not the reference: objects that differ only in key order are
/// equal in JSON Schema, so an array holding both is not unique. jsonschema 0.40, as this test
/// crate builds it (serde_json with `preserve_order`, which the fixtures need), reports it unique.
#[test]
fn unique_items_ignores_key_order() {
    let schema = json!({"properties": {"x": {"uniqueItems": true}}});
    let (ours, _) = verdicts(&schema, &json!({"x": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}));
    assert!(ours.unwrap_err().starts_with("uniqueItems at \"/x/1\""));
}

/// jsonschema 0.40 reports no negative number a multiple of a fractional `multipleOf` (not even
/// -1 of 0.25); JSON Schema asks whether the quotient is an integer, and -4 is.
#[test]
fn multiple_of_takes_negative_numbers() {
    let schema = json!({"properties": {"x": {"multipleOf": 0.25}}});
    assert!(verdicts(&schema, &json!({"x": -0.75})).0.is_ok());
    assert!(verdicts(&schema, &json!({"x": -1})).0.is_ok());
    assert!(verdicts(&schema, &json!({"x": -0.3})).0.is_err());
}

#[test]
fn agrees_with_jsonschema_on_the_corpus() {
    let mut disagreements = Vec::new();
    for (schema, instances) in corpus() {
        for instance in instances {
            let (ours, theirs) = verdicts(&schema, &instance);
            if ours.is_ok() != theirs {
                disagreements.push(format!(
                    "schema {schema}\n  instance {instance}: beacon {ours:?}, jsonschema {theirs}"
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// The calls of every fixture case that passes tools, typed as beacon types them (validation
/// off), judged by beacon and by the reference validator.
#[test]
fn agrees_with_jsonschema_on_the_fixtures() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tools.json");
    let root: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for case in root["cases"].as_array().unwrap() {
        let Some(definitions) = case.get("tools") else { continue };
        let t = tools(definitions.clone()).unwrap();
        let options = ParseOptions {
            validate: false,
            unknown: UnknownTools::Drop,
            ..ParseOptions::with_tools(&t)
        };
        let Ok(calls) = parse_tool_calls_with(case["input"].as_str().unwrap(), &options) else {
            continue;
        };
        for call in calls {
            let tool = t.get(&call.name).unwrap();
            let Some(schema) = tool.parameters() else { continue };
            let ours = tool.validate(&call.arguments);
            let theirs = reference(&to_serde(schema)).is_valid(&to_serde(&Value::Object(call.arguments.clone())));
            compared += 1;
            if ours.is_ok() != theirs {
                disagreements.push(format!("{}: beacon {ours:?}, jsonschema {theirs}", case["id"]));
            }
        }
    }
    assert!(compared >= 60, "only {compared} calls compared");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

fn arb_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        (-20i64..20).prop_map(|i| json!(i)),
        (-40i32..40).prop_map(|i| json!(f64::from(i) / 4.0)),
        prop::sample::select(vec!["", "a", "pending", "done", "10001", "2024-02-29", "x@y.z", "fast"])
            .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec!["content", "status", "todos", "x_1", "mode", "ratio", "zip", "k"]),
                    inner
                ),
                0..4
            )
            .prop_map(|members| Json::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn random_schema() -> Json {
    json!({
        "type": "object",
        "$defs": {"Todo": {"type": "object", "properties": {"content": {"type": "string", "minLength": 1},
                  "status": {"enum": ["pending", "done"]}}, "required": ["content", "status"]}},
        "properties": {
            "todos": {"type": "array", "items": {"$ref": "#/$defs/Todo"}, "maxItems": 3, "uniqueItems": true},
            "mode": {"anyOf": [{"const": "fast"}, {"type": "integer", "minimum": 0}]},
            "ratio": {"type": "number", "multipleOf": 0.25, "exclusiveMaximum": 5},
            "zip": {"type": ["string", "null"], "pattern": "^[0-9]{5}$"},
            "k": {"oneOf": [{"type": "array"}, {"type": "object", "maxProperties": 1}]},
        },
        "patternProperties": {"^x_": {"type": "boolean"}},
        "additionalProperties": false,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn agrees_with_jsonschema_on_random_instances(members in prop::collection::vec(
        (prop::sample::select(vec!["todos", "mode", "ratio", "zip", "k", "x_1", "content"]), arb_json()), 0..4)) {
        let instance = Json::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        // The reference's `multipleOf` rejects every negative number (see below).
        prop_assume!(!instance.get("ratio").and_then(Json::as_f64).is_some_and(|r| r < 0.0));
        let schema = random_schema();
        let (ours, theirs) = verdicts(&schema, &instance);
        prop_assert_eq!(ours.is_ok(), theirs, "instance {}: beacon {:?}", instance, ours);
    }
}

/// `Object` is what a call's arguments are; the validator takes it as it is.
#[test]
fn validate_takes_call_arguments() {
    let t = tools(json!([{"name": "f", "parameters": {"required": ["a"]}}])).unwrap();
    let args: Object = vec![("b".to_string(), Value::Null)];
    let v = t.get("f").unwrap().validate(&args).unwrap_err();
    assert_eq!((v.path.as_str(), v.keyword), ("", "required"));
}

/// The README's example.
#[test]
fn readme_example() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Tools::from_json(
        r#"[{"type": "function", "function": {"name": "lookup_zip",
    "parameters": {"type": "object", "properties": {"zip": {"type": "string"}}, "required": ["zip"]}}}]"#,
    )?;
    let options = ParseOptions::with_tools(&tools);
    let call = beacon_core::parse_tool_call_with(
        "<function=lookup_zip><parameter=zip>10001</parameter></function>",
        &options,
    )?;
    assert_eq!(call.arguments[0].1, Value::String("10001".into()));
    Ok(())
}
