//! Identity slips: a participant presenting itself under another participant's name
//! ("I'm Ms. Rivera" said by a student). Names come from the personas' front matter.

use crate::inputs::Persona;
use text::words::{sentences, words};

/// Words before a surname that are titles, not names ("Ms. Rivera" is also "Rivera").
const TITLES: &[&str] = &[
    "dr",
    "doctor",
    "prof",
    "professor",
    "ms",
    "mr",
    "mrs",
    "miss",
    "mx",
    "judge",
    "sir",
    "dame",
];

/// The ways a participant can be called: its `name`, its `display_name`, and when the
/// display name is a person's name (capitalised words), that name without its title, its
/// surname and its given name ("Dr. Nadia Okafor": "Nadia Okafor", "Okafor", "Nadia").
/// Each is a sequence of lower-case words.
pub fn name_variants(persona: &Persona) -> Vec<Vec<String>> {
    let mut variants = vec![words(&persona.name)];
    if let Some(display) = &persona.display_name {
        variants.push(words(display));
        variants.extend(personal_name_parts(display));
    }
    variants.retain(|v| !v.is_empty());
    variants.sort();
    variants.dedup();
    variants
}

/// Parts of a display name that are a person's name, or none ("Counsel for the defense").
fn personal_name_parts(display: &str) -> Vec<Vec<String>> {
    let raw: Vec<&str> = display.split_whitespace().collect();
    let is_title = |w: &&str| TITLES.contains(&w.trim_end_matches('.').to_lowercase().as_str());
    let name: Vec<&str> = raw.iter().copied().skip_while(is_title).collect();
    let capitalised = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    if name.is_empty() || !name.iter().all(capitalised) {
        return Vec::new();
    }
    let mut parts = vec![words(&name.join(" "))];
    if let [first, .., last] = name.as_slice() {
        parts.push(words(first));
        parts.push(words(last));
    }
    parts
}

/// One participant of the session, with the names it answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Participant {
    pub speaker: String,
    pub names: Vec<Vec<String>>,
}

impl Participant {
    pub fn new(persona: &Persona) -> Self {
        Self {
            speaker: persona.name.clone(),
            names: name_variants(persona),
        }
    }
}

/// The name of another participant that `speaker` presents itself as in `text`, if any.
pub fn identity_slip(speaker: &str, text: &str, participants: &[Participant]) -> Option<String> {
    let own: Vec<&Vec<String>> = participants
        .iter()
        .filter(|p| p.speaker == speaker)
        .flat_map(|p| &p.names)
        .collect();
    let others = participants
        .iter()
        .filter(|p| p.speaker != speaker)
        .flat_map(|p| &p.names)
        .filter(|name| !own.contains(name));
    let sentences = sentences_keeping_titles(text);
    let line_start = sentences.first().map(Vec::as_slice).unwrap_or_default();
    others
        .filter(|name| sentences.iter().any(|s| introduces(s, name)) || signs_as(line_start, name))
        .max_by_key(|name| name.len())
        .map(|name| name.join(" "))
}

/// The words of each sentence of `text`, where a title's period ("Ms.", "Dr.") does not
/// end a sentence.
fn sentences_keeping_titles(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut continues = false;
    for sentence in sentences(text) {
        let said = words(sentence);
        match out.last_mut() {
            Some(last) if continues => last.extend(said),
            _ => out.push(said),
        }
        continues = out
            .last()
            .and_then(|s| s.last())
            .is_some_and(|w| TITLES.contains(&w.as_str()) && sentence.ends_with('.'));
    }
    out
}

/// "I'm X", "I am X", "my name is X" anywhere in the sentence; "this is X" opening it,
/// with nothing after X but "speaking" or "here" ("This is Sam, our guest" introduces
/// someone else).
fn introduces(sentence: &[String], name: &[String]) -> bool {
    const INTROS: &[&[&str]] = &[&["i'm"], &["im"], &["i", "am"], &["my", "name", "is"]];
    let follows_intro = |at: usize| {
        INTROS
            .iter()
            .any(|intro| at >= intro.len() && sentence[at - intro.len()..at] == **intro)
    };
    let named_at = |at: usize| sentence[at..].starts_with(name);
    let introduced = (1..sentence.len()).any(|at| follows_intro(at) && named_at(at));
    let announced = sentence.starts_with(&["this".to_owned(), "is".to_owned()])
        && named_at(2)
        && matches!(
            sentence.get(2 + name.len()).map(String::as_str),
            None | Some("speaking" | "here")
        );
    introduced || announced
}

/// "X here" opening the line.
fn signs_as(first_sentence: &[String], name: &[String]) -> bool {
    first_sentence.starts_with(name)
        && first_sentence.get(name.len()).map(String::as_str) == Some("here")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn persona(name: &str, display: &str) -> Persona {
        Persona {
            name: name.into(),
            display_name: Some(display.into()),
            instructions: String::new(),
        }
    }

    fn participants() -> Vec<Participant> {
        [
            persona("tutor", "Ms. Rivera"),
            persona("student1", "Ben"),
            persona("ethicist", "Dr. Nadia Okafor"),
            persona("defense", "Counsel for the defense"),
        ]
        .iter()
        .map(Participant::new)
        .collect()
    }

    fn names(variants: &[Vec<String>]) -> Vec<String> {
        variants.iter().map(|v| v.join(" ")).collect()
    }

    #[test]
    fn display_names_give_surnames_and_names_without_titles() {
        assert_eq!(
            names(&name_variants(&persona("tutor", "Ms. Rivera"))),
            ["ms rivera", "rivera", "tutor"]
        );
        assert_eq!(
            names(&name_variants(&persona("ethicist", "Dr. Nadia Okafor"))),
            [
                "dr nadia okafor",
                "ethicist",
                "nadia",
                "nadia okafor",
                "okafor"
            ]
        );
        assert_eq!(
            names(&name_variants(&persona("moderator", "Diana Chen"))),
            ["chen", "diana", "diana chen", "moderator"]
        );
        assert_eq!(
            names(&name_variants(&persona(
                "defense",
                "Counsel for the defense"
            ))),
            ["counsel for the defense", "defense"]
        );
    }

    #[test]
    fn presenting_as_another_is_a_slip() {
        let p = participants();
        for (line, name) in [
            (
                "Hello! I'm Ms. Rivera, and derivatives are slopes.",
                "ms rivera",
            ),
            ("I am Rivera.", "rivera"),
            ("Well, my name is Ms. Rivera.", "ms rivera"),
            ("This is Rivera speaking.", "rivera"),
            ("Rivera here, let's look at limits.", "rivera"),
        ] {
            assert_eq!(
                identity_slip("student1", line, &p).as_deref(),
                Some(name),
                "{line}"
            );
        }
        assert_eq!(
            identity_slip("tutor", "I'm Nadia Okafor.", &p).as_deref(),
            Some("nadia okafor")
        );
    }

    #[test]
    fn a_title_does_not_end_a_sentence() {
        assert_eq!(
            sentences_keeping_titles("This is Dr. Okafor. Hi."),
            [words("This is Dr Okafor"), words("Hi")]
        );
    }

    #[test]
    fn own_names_and_mentions_are_no_slip() {
        let p = participants();
        for line in [
            "I'm Ms. Rivera, your tutor.",
            "I'm Ben's tutor.",
            "This is Ben, who will try an example.",
            "I'm sure Ben is right.",
            "Ask Ben here about the slope.",
        ] {
            assert_eq!(identity_slip("tutor", line, &p), None, "{line}");
        }
        assert_eq!(identity_slip("student1", "I'm Ben.", &p), None);
    }
}
