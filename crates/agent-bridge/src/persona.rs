//! Persona files: who a participant is and how it talks.
//!
//! ```toml
//! name = "tutor"                 # participant name (the policy name)
//! display_name = "Ms. Rivera"    # optional, how others address it
//! role = "tutor"                 # tutor, student, judge, defense, prosecution, moderator, expert, guest, ...
//! style = "patient, concrete"    # optional
//! voice = "en-us+f3"             # optional, for the TTS voice map
//! system_prompt = "You are ..."
//! ```

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    pub name: String,
    #[serde(default)]
    pub display_name: Option<String>,
    pub role: String,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub voice: Option<String>,
    pub system_prompt: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PersonaError {
    #[error("invalid persona file: {0}")]
    Invalid(#[from] toml::de::Error),
    #[error("persona `{field}` must not be empty")]
    Empty { field: &'static str },
}

impl Persona {
    pub fn from_toml(text: &str) -> Result<Self, PersonaError> {
        let persona: Persona = toml::from_str(text)?;
        for (field, value) in [
            ("name", &persona.name),
            ("role", &persona.role),
            ("system_prompt", &persona.system_prompt),
        ] {
            if value.trim().is_empty() {
                return Err(PersonaError::Empty { field });
            }
        }
        Ok(persona)
    }

    /// A minimal persona for a participant without a persona file.
    pub fn fallback(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            display_name: None,
            role: name
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .to_owned(),
            style: None,
            voice: None,
            system_prompt: format!(
                "You are {name}, a participant in a spoken group conversation. Answer in two or three short sentences."
            ),
        }
    }

    /// How others address this participant.
    pub fn spoken_name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_validates() {
        let p = Persona::from_toml(
            "name = \"tutor\"\nrole = \"tutor\"\nsystem_prompt = \"Teach.\"\nvoice = \"en+f3\"",
        )
        .unwrap();
        assert_eq!(p.spoken_name(), "tutor");
        assert_eq!(p.voice.as_deref(), Some("en+f3"));
        assert!(Persona::from_toml("name = \"x\"\nrole = \"\"\nsystem_prompt = \"s\"").is_err());
        assert!(Persona::from_toml("name = \"x\"\nrole = \"r\"").is_err());
        assert!(
            Persona::from_toml("name = \"x\"\nrole = \"r\"\nsystem_prompt = \"s\"\ncolour = 1")
                .is_err()
        );
        assert_eq!(Persona::fallback("student2").role, "student");
    }
}
