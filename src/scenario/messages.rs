//! serde's messages in the user's words: no Rust type names (`expected f64`, `expected struct
//! ParamsSpec`), and no user text longer than [`crate::display::MAX_ECHOED_CHARS`] echoed back.

use crate::display::echoed;

/// Longest message of this layer, in bytes: whatever the input, an error stays readable.
const MAX_MESSAGE_BYTES: usize = 600;

/// `message` (from serde or serde_json, about the value at JSON `path`) in plain words.
pub fn plain(message: &str, path: &str) -> String {
    let mut text = shorten_quoted(message);
    text = replace_named(&text, "internally tagged enum ", |_| {
        "an object with a \"type\" (force, released, accel or path)".to_string()
    });
    text = replace_named(&text, "struct ", |_| "an object".to_string());
    for tag in ["expected variant identifier", "expected string or map"] {
        text = text.replace(tag, &format!("expected {}", variants(path)));
    }
    for (rust, words) in [
        ("f64", "a number"),
        ("f32", "a number"),
        ("usize", "a whole number >= 0"),
        ("u64", "a whole number >= 0"),
        ("u32", "a whole number >= 0"),
        ("i32", "a whole number"),
        ("i64", "a whole number"),
        ("a sequence", "a list"),
        ("a string", "text (a JSON string)"),
    ] {
        text = text.replace(&format!("expected {rust}"), &format!("expected {words}"));
    }
    for (length, words) in [("2", "[x, y]"), ("3", three_numbers(path))] {
        text = text.replace(
            &format!("expected an array of length {length}"),
            &format!("expected a list of {length} numbers {words}"),
        );
    }
    text = text
        .replace("invalid type: sequence", "invalid type: a list")
        .replace("invalid type: map", "invalid type: an object")
        .replace("invalid type: null", "invalid type: null (no value)");
    cut(text)
}

/// What a list of 3 numbers at `path` holds, by its field name: an axle's direction, a point
/// or a velocity in space, or a keyframe [t, x, y].
fn three_numbers(path: &str) -> &'static str {
    let field = path.rsplit('.').next().unwrap_or(path);
    match field {
        "axle" => "[ax, ay, az] (the axle's direction)",
        "pos" | "vel" | "value" => "[x, y, z]",
        _ => "[t, x, y]",
    }
}

/// The names a tag at `path` may take, by its field name.
fn variants(path: &str) -> &'static str {
    let field = path.rsplit('.').next().unwrap_or(path);
    match field {
        "friction_law" => "one of step, tanh, bearing",
        "method" => "one of dopri5, dop853, rk4, rodas",
        "type" => "one of force, released, accel, path",
        _ => "one of the names the format lists (see `diabolo schema`)",
    }
}

/// Replaces `prefix Name` (and a following ` with N elements`) by `words(Name)`.
fn replace_named(text: &str, prefix: &str, words: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        out.push_str(&rest[..i]);
        let after = &rest[i + prefix.len()..];
        let name_end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_end == 0 {
            out.push_str(prefix);
            rest = after;
            continue;
        }
        out.push_str(&words(&after[..name_end]));
        rest = &after[name_end..];
        if let Some(tail) = rest.strip_prefix(" with ") {
            if let Some(end) = tail.find(" elements") {
                if tail[..end].chars().all(|c| c.is_ascii_digit()) {
                    rest = &tail[end + " elements".len()..];
                }
            }
        }
    }
    out.push_str(rest);
    out
}

/// Cuts every quoted run ("..." or `...`) longer than the echo limit.
fn shorten_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * MAX_MESSAGE_BYTES));
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '"' && c != '`' {
            out.push(c);
            continue;
        }
        let mut end = None;
        let mut escaped = false;
        for (j, d) in chars.by_ref() {
            if escaped {
                escaped = false;
            } else if d == '\\' && c == '"' {
                escaped = true;
            } else if d == c {
                end = Some(j);
                break;
            }
        }
        let inner = &text[start + 1..end.unwrap_or(text.len())];
        out.push(c);
        out.push_str(&echoed(inner));
        if end.is_some() {
            out.push(c);
        }
    }
    out
}

/// The whole message cut at [`MAX_MESSAGE_BYTES`] (on a character boundary).
fn cut(text: String) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let mut end = MAX_MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... (cut)", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_become_words() {
        for (message, path, words) in [
            (
                "invalid type: integer `3`, expected struct ParamsSpec",
                "params",
                "expected an object",
            ),
            (
                "invalid length 2, expected struct Scenario with 6 elements",
                "",
                "expected an object",
            ),
            (
                "invalid type: string \"a\", expected f64",
                "x",
                "expected a number",
            ),
            (
                "invalid value: integer `-1`, expected usize",
                "sim.zeno_bounces",
                "expected a whole number >= 0",
            ),
            (
                "invalid type: integer `3`, expected variant identifier",
                "params.friction_law",
                "expected one of step, tanh, bearing",
            ),
            (
                "invalid type: integer `3`, expected internally tagged enum DriveSpec",
                "drive.left",
                "an object with a \"type\"",
            ),
        ] {
            let plain = plain(message, path);
            assert!(plain.contains(words), "{message} -> {plain}");
            for rust in ["struct", "f64", "usize", "i32", "identifier", "DriveSpec"] {
                assert!(!plain.contains(rust), "{message} -> {plain}");
            }
        }
    }

    #[test]
    fn long_quoted_values_are_cut() {
        let long = "x".repeat(1_000_000);
        let message = format!("invalid type: string \"{long}\", expected f64");
        let plain = plain(&message, "params.friction");
        assert!(plain.len() < 300, "{}", plain.len());
        assert!(plain.contains("1000000 characters"), "{plain}");
        assert!(plain.ends_with("expected a number"), "{plain}");
    }
}
