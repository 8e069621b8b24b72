//! Property tests: ids never escape, parsers never panic, assembly keeps table order and
//! caps, append-only files always hold exactly the concatenation of their appends.

mod common;
use common::copy_tree;

use std::path::{Component, Path};

use agent_context::assembly::{CUT_HEAD_MARKER, CUT_TAIL_MARKER, cut_text, is_effectively_empty};
use agent_context::layout::Layout;
use agent_context::{
    AgentName, AssemblyCaps, ContextRow, ContextStore, Cut, FileRef, Manifest, Mutability,
    PersonaTemplate, RowText, SessionFile, SessionId, assemble,
};
use proptest::prelude::*;

/// Strings made of the pieces path escapes are built from, plus arbitrary text.
fn hostile_string() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(
            prop_oneof![
                Just(".".to_owned()),
                Just("..".to_owned()),
                Just("/".to_owned()),
                Just("\\".to_owned()),
                Just("C:".to_owned()),
                Just("~".to_owned()),
                Just("\0".to_owned()),
                Just(" ".to_owned()),
                "[A-Za-z0-9_-]{1,8}",
            ],
            0..8
        )
        .prop_map(|parts| parts.concat()),
        "[A-Za-z0-9_.-]{0,70}",
    ]
}

fn row_strategy() -> impl Strategy<Value = ContextRow> {
    prop::sample::select(ContextRow::ALL.to_vec())
}

fn content_strategy() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some("   \n".to_owned())),
        6 => "(.{0,40}\n){0,30}".prop_map(Some),
        2 => any::<String>().prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn accepted_ids_never_escape_the_root(s in hostile_string()) {
        let session = SessionId::new(s.as_str());
        let agent = AgentName::new(s.as_str());
        prop_assert_eq!(session.is_ok(), agent.is_ok());
        if let Ok(id) = session {
            prop_assert!(!id.as_str().is_empty() && id.as_str().len() <= 64);
            prop_assert!(!id.as_str().contains(['.', '/', '\\']));
            let components: Vec<Component> = Path::new(id.as_str()).components().collect();
            prop_assert_eq!(components, vec![Component::Normal(id.as_str().as_ref())]);
            let layout = Layout::new("/root");
            let dir = layout.session_dir(&id);
            let sessions = layout.sessions_dir();
            prop_assert_eq!(dir.parent(), Some(sessions.as_path()));
        }
    }

    #[test]
    fn well_formed_ids_are_accepted(s in "[A-Za-z0-9_-]{1,64}") {
        prop_assert!(SessionId::new(s.as_str()).is_ok());
        prop_assert!(AgentName::new(s.as_str()).is_ok());
    }

    #[test]
    fn persona_parser_never_panics(s in any::<String>(), fenced in any::<bool>()) {
        let folder = AgentName::new("skeptic").unwrap();
        let text = if fenced { format!("+++\n{s}\n+++\n{s}") } else { s };
        let _ = PersonaTemplate::parse(&text, &folder);
    }

    #[test]
    fn manifest_parser_never_panics(s in any::<String>()) {
        let _ = Manifest::parse(&s);
    }

    #[test]
    fn manifest_round_trips(entries in prop::collection::btree_map(
        "[a-z0-9_.-]{1,12}(/[a-z0-9_.-]{1,12}){0,3}", any::<Vec<u8>>(), 0..20)) {
        let mut m = Manifest::new();
        for (path, content) in &entries {
            m.add(path.clone(), content);
        }
        let parsed = Manifest::parse(&m.render()).unwrap();
        prop_assert!(m.diff(&parsed).is_empty());
        prop_assert_eq!(parsed, m);
    }

    #[test]
    fn emptiness_check_never_panics(s in any::<String>()) {
        let _ = is_effectively_empty(&s);
    }

    #[test]
    fn cuts_keep_a_prefix_or_suffix_within_the_limit(
        text in any::<String>(), limit in 0usize..200, tail in any::<bool>()
    ) {
        let (out, how) = cut_text(&text, limit, tail);
        prop_assert!(out.len() <= limit);
        match how {
            Cut::None => prop_assert_eq!(&out, &text),
            Cut::KeptTail => prop_assert!(out.is_empty() || (out.starts_with(CUT_HEAD_MARKER)
                && text.ends_with(&out[CUT_HEAD_MARKER.len()..]))),
            Cut::KeptHead => prop_assert!(out.is_empty() || (out.ends_with(CUT_TAIL_MARKER)
                && text.starts_with(&out[..out.len() - CUT_TAIL_MARKER.len()]))),
        }
    }

    #[test]
    fn assembly_keeps_table_order_and_caps(
        rows in prop::collection::vec((row_strategy(), content_strategy()), 0..16),
        max_part in 0usize..600,
        max_total in 0usize..2000,
    ) {
        let caps = AssemblyCaps { max_part_bytes: max_part, max_total_bytes: max_total };
        let input: Vec<RowText> = rows
            .iter()
            .map(|(row, content)| RowText {
                row: *row,
                path: format!("p{}", row.number()),
                content: content.clone(),
            })
            .collect();
        let ctx = assemble(input, caps);
        // Strictly increasing table numbers: the table's order, each row at most once.
        prop_assert!(ctx.parts.windows(2).all(|w| w[0].row.number() < w[1].row.number()));
        prop_assert!(ctx.content_bytes() <= max_total);
        for part in &ctx.parts {
            prop_assert!(part.content.len() <= max_part);
            prop_assert!(!part.content.is_empty());
            // The first text given for the row is the one used.
            let original = rows.iter().find(|(r, _)| *r == part.row).unwrap().1.clone().unwrap();
            prop_assert_eq!(part.original_bytes, original.len());
            match part.cut {
                Cut::None => prop_assert_eq!(&part.content, &original),
                Cut::KeptTail => {
                    prop_assert_eq!(part.row.mutability(), Mutability::AppendOnly);
                    let kept = part.content.strip_prefix(CUT_HEAD_MARKER).unwrap();
                    prop_assert!(original.ends_with(kept));
                }
                Cut::KeptHead => {
                    prop_assert!(part.row.mutability() != Mutability::AppendOnly);
                    let kept = part.content.strip_suffix(CUT_TAIL_MARKER).unwrap();
                    prop_assert!(original.starts_with(kept));
                }
            }
        }
        // Headers appear in the same order in the prompt.
        let mut at = 0;
        for part in &ctx.parts {
            let header = format!("## {} ({})", part.label, part.path);
            let found = ctx.prompt[at..].find(&header);
            prop_assert!(found.is_some());
            at += found.unwrap() + header.len();
        }
    }
}

fn fixture_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents")
}

proptest! {
    // Each case creates a session on disk; keep the count modest.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn appends_reproduce_the_concatenation(
        chunks in prop::collection::vec(any::<String>(), 0..10),
        panelist in prop::sample::select(vec!["skeptic", "analyst", "contrarian"]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["templates", "session-templates"] {
            copy_tree(&fixture_root().join(sub), &dir.path().join(sub));
        }
        let store = ContextStore::open(dir.path()).unwrap();
        let id = SessionId::new("p").unwrap();
        store.create_session(&id, 0).unwrap();
        let agent = AgentName::new(panelist).unwrap();
        let files = [
            FileRef::shared(SessionFile::PresenterTranscript).unwrap(),
            FileRef::agent(&agent, SessionFile::PresenterProfile).unwrap(),
        ];
        for file in &files {
            let initial = store.read(&id, file).unwrap().unwrap_or_default();
            let mut expected = initial.clone();
            for chunk in &chunks {
                store.append(&id, file, chunk).unwrap();
                expected.push_str(chunk);
            }
            prop_assert_eq!(store.read(&id, file).unwrap().unwrap(), expected);
        }
    }
}
