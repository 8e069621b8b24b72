//! Which voice speaks for whom: a distinct voice per participant, the ones `VOICE_MAP`
//! names first (`tutor=en-us+f3, student1=en-us+m3`), then the backend's voices handed
//! out in turn to the speakers it does not name, in the order they first speak.

use std::collections::BTreeMap;

/// espeak-ng voices handed out in turn to speakers without a `VOICE_MAP` entry.
pub const ESPEAK_VOICES: &[&str] = &[
    "en-us+f3", "en-us+m3", "en-us+f4", "en-us+m1", "en-us+f2", "en-us+m4",
];

/// Kokoro's packaged voices and blends of them (`kokoro_input::VoiceSpec`), handed out in
/// turn to speakers without a `VOICE_MAP` entry: the clearest first.
pub const KOKORO_VOICES: &[&str] = &[
    "jf_gongitsune",
    "jm_kumo",
    "jf_nezumi",
    "jf_tebukuro",
    "jf_alpha",
    "jm_kumo*0.6+jf_alpha*0.4@1.05",
];

/// OpenAI's voices, handed out in turn when `VOICE_MAP` names none.
pub const OPENAI_VOICES: &[&str] = &["alloy", "echo", "fable", "onyx", "nova", "shimmer"];

/// A `VOICE_MAP` entry that is not `speaker=voice`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceMapError {
    pub entry: String,
}

impl std::fmt::Display for VoiceMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VOICE_MAP entry {:?} is not `speaker=voice`", self.entry)
    }
}

impl std::error::Error for VoiceMapError {}

/// Distinct voices per participant: `VOICE_MAP` entries first, then a rotation.
#[derive(Debug, Clone)]
pub struct VoiceMap {
    fixed: BTreeMap<String, String>,
    rotation: Vec<String>,
    assigned: BTreeMap<String, String>,
}

impl VoiceMap {
    /// Parses `tutor=en-us+f3, student1=en-us+m3`; speakers it does not name get the
    /// voices of `rotation` in turn.
    pub fn parse(spec: &str, rotation: &[&str]) -> Result<Self, VoiceMapError> {
        let mut fixed = BTreeMap::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((who, voice)) = entry.split_once('=') else {
                return Err(VoiceMapError {
                    entry: entry.to_owned(),
                });
            };
            fixed.insert(who.trim().to_owned(), voice.trim().to_owned());
        }
        Ok(Self {
            fixed,
            rotation: rotation.iter().map(|v| v.to_string()).collect(),
            assigned: BTreeMap::new(),
        })
    }

    /// The speakers `VOICE_MAP` names, with their voices.
    pub fn fixed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.fixed.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The voice of `speaker`: its own, or the next of the rotation the first time it
    /// speaks (the same voice ever after).
    pub fn voice_for(&mut self, speaker: &str) -> String {
        if let Some(voice) = self.fixed.get(speaker) {
            return voice.clone();
        }
        let next = self.assigned.len() % self.rotation.len().max(1);
        let voice = self.rotation.get(next).cloned().unwrap_or_default();
        self.assigned
            .entry(speaker.to_owned())
            .or_insert(voice)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voice_map_is_fixed_then_rotating() {
        let mut map = VoiceMap::parse("tutor=en-us+f3", &["a", "b"]).unwrap();
        assert_eq!(map.voice_for("tutor"), "en-us+f3");
        assert_eq!(map.voice_for("ben"), "a");
        assert_eq!(map.voice_for("mia"), "b");
        assert_eq!(map.voice_for("ben"), "a");
        assert!(VoiceMap::parse("oops", &["a"]).is_err());
    }

    #[test]
    fn the_rotation_wraps_and_a_map_without_voices_names_none() {
        let mut map = VoiceMap::parse(" ,ann = v1 ", &["a", "b"]).unwrap();
        assert_eq!(map.voice_for("ann"), "v1");
        let voices: Vec<String> = ["b1", "b2", "b3"]
            .iter()
            .map(|s| map.voice_for(s))
            .collect();
        assert_eq!(voices, ["a", "b", "a"]);
        assert_eq!(
            VoiceMap::parse("x=y, oops", &[]).unwrap_err().to_string(),
            "VOICE_MAP entry \"oops\" is not `speaker=voice`"
        );
        assert_eq!(VoiceMap::parse("", &[]).unwrap().voice_for("ann"), "");
    }
}
