//! Agent templates: `templates/<agent>/persona.md` and friends.
//!
//! A persona file is Markdown with a TOML front matter between two `+++` lines:
//!
//! ```text
//! +++
//! name = "skeptic"              # must equal the folder name
//! display_name = "Marcus Webb"
//! role = "skeptic"
//! voice = "en-us+m3"            # key of the TTS voice map
//! style = "blunt, numbers first"
//! +++
//! You are Marcus Webb, ...      # the body: the system prompt
//! ```
//!
//! All five fields are required and must not be blank; unknown fields are rejected so a
//! typo never passes silently. The body (trimmed) is the agent's system prompt and must
//! not be empty either. [`PersonaTemplate`] carries the same fields as the persona TOML
//! files of the existing LLM bridge, and [`PersonaTemplate::to_persona_toml`] renders one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::id::AgentName;

/// The delimiter line of the front matter.
pub const FRONT_MATTER_FENCE: &str = "+++";

/// Why a persona file is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("no TOML front matter: the file must start with a `+++` line")]
    NoFrontMatter,
    #[error("front matter is not closed by a second `+++` line")]
    UnclosedFrontMatter,
    #[error("bad front matter: {0}")]
    Toml(String),
    #[error("front matter field `{0}` must not be empty")]
    EmptyField(&'static str),
    #[error("the persona body (the system prompt after the front matter) is empty")]
    EmptyBody,
    #[error("persona name `{name}` does not match its folder `{folder}`")]
    NameMismatch { name: String, folder: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    name: String,
    display_name: String,
    role: String,
    voice: String,
    style: String,
}

/// Who an agent is and how it talks: the parsed `persona.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PersonaTemplate {
    /// Agent name (the folder name, and the participant name in the conversation).
    pub name: String,
    /// How others address the agent ("Marcus Webb").
    pub display_name: String,
    pub role: String,
    pub style: String,
    /// Key of the TTS voice map.
    pub voice: String,
    /// The Markdown body: identity, personality, rules.
    pub system_prompt: String,
}

/// Splits `text` into the front matter and the body.
pub fn split_front_matter(text: &str) -> Result<(&str, &str), TemplateError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().ok_or(TemplateError::NoFrontMatter)?;
    if first.trim_end() != FRONT_MATTER_FENCE {
        return Err(TemplateError::NoFrontMatter);
    }
    let start = first.len();
    let mut offset = start;
    for line in lines {
        if line.trim_end() == FRONT_MATTER_FENCE {
            return Ok((&text[start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(TemplateError::UnclosedFrontMatter)
}

impl PersonaTemplate {
    /// Parses a persona file. `folder` is the name of the template folder it came from;
    /// the persona's `name` must equal it.
    pub fn parse(text: &str, folder: &AgentName) -> Result<Self, TemplateError> {
        let (front, body) = split_front_matter(text)?;
        let fm: FrontMatter =
            toml::from_str(front).map_err(|e| TemplateError::Toml(e.message().to_owned()))?;
        for (field, value) in [
            ("name", &fm.name),
            ("display_name", &fm.display_name),
            ("role", &fm.role),
            ("voice", &fm.voice),
            ("style", &fm.style),
        ] {
            if value.trim().is_empty() {
                return Err(TemplateError::EmptyField(field));
            }
        }
        if fm.name != folder.as_str() {
            return Err(TemplateError::NameMismatch {
                name: fm.name,
                folder: folder.to_string(),
            });
        }
        let body = body.trim();
        if body.is_empty() {
            return Err(TemplateError::EmptyBody);
        }
        Ok(Self {
            name: fm.name,
            display_name: fm.display_name,
            role: fm.role,
            style: fm.style,
            voice: fm.voice,
            system_prompt: body.to_owned(),
        })
    }

    /// The persona as the LLM bridge's persona TOML (`name`, `display_name`, `role`,
    /// `style`, `voice`, `system_prompt`), so a bridge can be fed from a template.
    pub fn to_persona_toml(&self) -> String {
        // Serializing a struct of plain strings cannot fail.
        toml::to_string(self).unwrap_or_default()
    }
}

/// Everything in one `templates/<agent>/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentTemplate {
    pub name: AgentName,
    pub persona: PersonaTemplate,
    /// `domain-knowledge.md`, if present and not blank.
    pub domain_knowledge: Option<String>,
    /// Every other `*.md` file of the folder by file name (e.g. the moderator's
    /// `orchestration.md` and `phrase-library.md`).
    pub documents: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skeptic() -> AgentName {
        AgentName::new("skeptic").unwrap()
    }

    const GOOD: &str = "+++\nname = \"skeptic\"\ndisplay_name = \"Marcus Webb\"\nrole = \"skeptic\"\nvoice = \"en-us+m3\"\nstyle = \"blunt\"\n+++\n\nYou are Marcus Webb.\n";

    #[test]
    fn parses_a_persona() {
        let p = PersonaTemplate::parse(GOOD, &skeptic()).unwrap();
        assert_eq!(p.display_name, "Marcus Webb");
        assert_eq!(p.system_prompt, "You are Marcus Webb.");
        let crlf = GOOD.replace('\n', "\r\n");
        assert_eq!(
            PersonaTemplate::parse(&crlf, &skeptic()).unwrap().voice,
            "en-us+m3"
        );
        let bom = format!("\u{feff}{GOOD}");
        assert!(PersonaTemplate::parse(&bom, &skeptic()).is_ok());
    }

    #[test]
    fn rejects_malformed_personas() {
        let s = skeptic();
        assert_eq!(
            PersonaTemplate::parse("You are nobody.", &s),
            Err(TemplateError::NoFrontMatter)
        );
        assert_eq!(
            PersonaTemplate::parse("+++\nname = \"skeptic\"\n", &s),
            Err(TemplateError::UnclosedFrontMatter)
        );
        assert!(matches!(
            PersonaTemplate::parse("+++\nname = \n+++\nbody", &s),
            Err(TemplateError::Toml(_))
        ));
        let missing = GOOD.replace("voice = \"en-us+m3\"\n", "");
        match PersonaTemplate::parse(&missing, &s) {
            Err(TemplateError::Toml(m)) => assert!(m.contains("voice"), "{m}"),
            other => panic!("{other:?}"),
        }
        let unknown = GOOD.replace("style", "colour = 1\nstyle");
        assert!(matches!(
            PersonaTemplate::parse(&unknown, &s),
            Err(TemplateError::Toml(_))
        ));
        let blank = GOOD.replace("\"blunt\"", "\" \"");
        assert_eq!(
            PersonaTemplate::parse(&blank, &s),
            Err(TemplateError::EmptyField("style"))
        );
        let no_body = GOOD.replace("You are Marcus Webb.", "  ");
        assert_eq!(
            PersonaTemplate::parse(&no_body, &s),
            Err(TemplateError::EmptyBody)
        );
        let other = AgentName::new("analyst").unwrap();
        assert!(matches!(
            PersonaTemplate::parse(GOOD, &other),
            Err(TemplateError::NameMismatch { .. })
        ));
    }

    #[test]
    fn fence_must_be_a_whole_line() {
        assert_eq!(
            split_front_matter("+++ x\n+++\n"),
            Err(TemplateError::NoFrontMatter)
        );
        assert_eq!(split_front_matter("+++\na\n+++").unwrap(), ("a\n", ""));
        assert_eq!(split_front_matter("+++\n+++\nb").unwrap(), ("", "b"));
    }

    #[test]
    fn converts_to_persona_toml() {
        let p = PersonaTemplate::parse(GOOD, &skeptic()).unwrap();
        let text = p.to_persona_toml();
        let value: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(
            value["system_prompt"].as_str(),
            Some("You are Marcus Webb.")
        );
        assert_eq!(value["display_name"].as_str(), Some("Marcus Webb"));
        assert_eq!(value.len(), 6);
    }
}
