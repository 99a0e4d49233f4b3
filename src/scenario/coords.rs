//! Lists of numbers that hold one more in space: a vector is `[x, y]` in the hands' plane or
//! `[x, y, z]` in space, a keyframe `[t, x, y]` or `[t, x, y, z]`. A third coordinate anywhere
//! makes the scenario a run in space (docs/interface.md, "Scenarios in space").

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `N` numbers (the plane's: 2 for a vector, 3 for a keyframe) or `N + 1` (in space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coords<const N: usize> {
    values: [f64; 4],
    len: usize,
}

/// A vector: `[x, y]` or `[x, y, z]`.
pub type Vector = Coords<2>;
/// A keyframe: `[t, x, y]` or `[t, x, y, z]`.
pub type Keyframe = Coords<3>;

impl<const N: usize> Coords<N> {
    /// The numbers as given.
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len]
    }

    /// Whether the list holds the extra coordinate of space.
    pub fn is_space(&self) -> bool {
        self.len > N
    }

    /// The number at `i`, 0 past the end (a planar value in space has z = 0).
    pub fn get(&self, i: usize) -> f64 {
        if i < self.len {
            self.values[i]
        } else {
            0.0
        }
    }

    /// The first `N` numbers (the plane's).
    pub fn plane(&self) -> [f64; N] {
        std::array::from_fn(|i| self.values[i])
    }

    /// The `N + 1` numbers of space (z = 0 when not given).
    pub fn space(&self) -> [f64; 4] {
        std::array::from_fn(|i| if i <= N { self.get(i) } else { 0.0 })
    }
}

impl<const N: usize> Default for Coords<N> {
    fn default() -> Self {
        Self {
            values: [0.0; 4],
            len: N,
        }
    }
}

macro_rules! from_array {
    ($n:literal, $($len:literal),+) => {
        $(impl From<[f64; $len]> for Coords<$n> {
            fn from(v: [f64; $len]) -> Self {
                let mut values = [0.0; 4];
                values[..$len].copy_from_slice(&v);
                Self { values, len: $len }
            }
        })+
    };
}
from_array!(2, 2, 3);
from_array!(3, 3, 4);

impl<const N: usize> PartialEq<[f64; N]> for Coords<N> {
    fn eq(&self, other: &[f64; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> Serialize for Coords<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Coords<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Numbers<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for Numbers<N> {
            type Value = Coords<N>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(&words(N))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Coords<N>, A::Error> {
                let mut values = [0.0; 4];
                let mut len = 0;
                while let Some(v) = seq.next_element::<f64>()? {
                    if len == N + 1 {
                        // Count the rest for the message.
                        let mut total = len + 1;
                        while seq.next_element::<de::IgnoredAny>()?.is_some() {
                            total += 1;
                        }
                        return Err(de::Error::invalid_length(total, &self));
                    }
                    values[len] = v;
                    len += 1;
                }
                if len < N {
                    return Err(de::Error::invalid_length(len, &self));
                }
                Ok(Coords { values, len })
            }
        }
        deserializer.deserialize_seq(Numbers::<N>)
    }
}

/// What a list of `n` (or `n + 1`) numbers holds, in words.
fn words(n: usize) -> String {
    match n {
        2 => "a list of 2 numbers [x, y] (or 3 [x, y, z] in space)".into(),
        3 => "a list of 3 numbers [t, x, y] (or 4 [t, x, y, z] in space)".into(),
        n => format!("a list of {n} or {} numbers", n + 1),
    }
}

impl<const N: usize> JsonSchema for Coords<N> {
    fn schema_name() -> Cow<'static, str> {
        format!("Coords{N}").into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {"type": "number", "format": "double"},
            "minItems": N,
            "maxItems": N + 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_or_three_numbers() {
        let v: Vector = serde_json::from_str("[1, 2]").unwrap();
        assert!(!v.is_space());
        assert_eq!(v.space(), [1.0, 2.0, 0.0, 0.0]);
        let v: Vector = serde_json::from_str("[1, 2, 3]").unwrap();
        assert!(v.is_space());
        assert_eq!(v.plane(), [1.0, 2.0]);
        assert_eq!(serde_json::to_string(&v).unwrap(), "[1.0,2.0,3.0]");
        for bad in ["[1]", "[1, 2, 3, 4]", "[]"] {
            let e = serde_json::from_str::<Vector>(bad).unwrap_err().to_string();
            assert!(e.contains("[x, y] (or 3 [x, y, z] in space)"), "{e}");
        }
        let k: Keyframe = serde_json::from_str("[0, 1, 2, 3]").unwrap();
        assert!(k.is_space());
        assert!(serde_json::from_str::<Keyframe>("[0, 1]").is_err());
    }
}
