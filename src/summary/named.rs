//! Names in the result model that iolab knows as an enum, but that a
//! document may spell otherwise: fio's patterns and engines (`trim`,
//! `libaio`) in imported runs, or a newer iolab's. Such a name is kept as
//! written instead of failing the whole document.

use crate::io::engine::EngineKind;
use crate::plan::Rw;
use clap::ValueEnum;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value iolab knows (`Known`), or a name it does not, kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named<T> {
    Known(T),
    Other(String),
}

/// A job's access pattern.
pub type Pattern = Named<Rw>;
/// The engine a job ran on (fio's engine name for imported runs).
pub type EngineName = Named<EngineKind>;

/// An enum whose values have fixed names (the same ones clap accepts).
pub trait KnownName: ValueEnum + Copy {
    fn name(self) -> &'static str;
}

impl KnownName for Rw {
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl KnownName for EngineKind {
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl<T: KnownName> Named<T> {
    /// The name as iolab and fio write it (`randread`, `io_uring`).
    pub fn as_str(&self) -> &str {
        match self {
            Named::Known(v) => v.name(),
            Named::Other(s) => s,
        }
    }
    pub fn parse(s: &str) -> Self {
        T::from_str(s, false)
            .map(Named::Known)
            .unwrap_or_else(|_| Named::Other(s.to_string()))
    }
    pub fn known(&self) -> Option<&T> {
        match self {
            Named::Known(v) => Some(v),
            Named::Other(_) => None,
        }
    }
}

impl Pattern {
    /// Random offsets (fio's `rand*` patterns).
    pub fn is_random(&self) -> bool {
        match self {
            Named::Known(rw) => rw.is_random(),
            Named::Other(s) => s.starts_with("rand"),
        }
    }
    /// Reads and writes in one job.
    pub fn is_mixed(&self) -> bool {
        matches!(self, Named::Known(Rw::Rw | Rw::Randrw))
    }
}

impl<T: KnownName> std::fmt::Display for Named<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<T: KnownName> PartialEq<&str> for Named<T> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<T: KnownName> Serialize for Named<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<T: KnownName> schemars::JsonSchema for Named<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Named_{}", std::any::type_name::<T>().rsplit("::").next().unwrap_or("name")).into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known: Vec<&str> = T::value_variants().iter().map(|v| v.name()).collect();
        schemars::json_schema!({
            "description": "The name as iolab and fio write it: one of the examples, or a name of fio's (in imported runs) kept as written.",
            "type": "string",
            "examples": known,
        })
    }
}

impl<'de, T: KnownName> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Named::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_round_trip_and_unknown_ones_are_kept() {
        let p: Pattern = serde_json::from_str("\"randread\"").unwrap();
        assert_eq!(p, Named::Known(Rw::Randread));
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"randread\"");
        let e: EngineName = serde_json::from_str("\"io_uring\"").unwrap();
        assert_eq!(e, Named::Known(EngineKind::IoUring));
        let t: Pattern = serde_json::from_str("\"randtrim\"").unwrap();
        assert_eq!(t, Named::Other("randtrim".into()));
        assert!(t.is_random());
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"randtrim\"");
        let l: EngineName = Named::parse("libaio");
        assert_eq!(l.as_str(), "libaio");
    }
}
