//! The table of each program's inputs says what the sources read: every input id and
//! family in the table stands in the program's code (its package and the workspace
//! packages it depends on), as a string literal or as the `voice_protocol::ids` constant
//! that spells it.

mod common;

use std::collections::BTreeMap;

use common::{program_packages, sources, workspace};

use dataflow_wiring::inputs::PROGRAM_INPUTS;

/// `voice_protocol::ids`: each constant's name by the id it spells.
fn id_constants() -> BTreeMap<String, String> {
    let code =
        std::fs::read_to_string(workspace().join("crates/voice-protocol/src/lib.rs")).unwrap();
    let module = &code[code.find("pub mod ids {").unwrap()..];
    let module = &module[..module.find("\n}").unwrap()];
    module
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("pub const ")?;
            let (name, value) = rest.split_once(": &str = \"")?;
            Some((value.trim_end_matches("\";").to_owned(), name.to_owned()))
        })
        .collect()
}

#[test]
fn the_table_of_inputs_is_what_the_code_reads() {
    let constants = id_constants();
    assert!(constants.get("turn").is_some_and(|c| c == "TURN"));
    let mut problems = Vec::new();
    for (program, reads) in PROGRAM_INPUTS {
        let (_, packages) = program_packages(program);
        let code: String = packages.iter().flat_map(|p| sources(p)).collect();
        for id in reads.ids.iter().chain(reads.families) {
            let literal = code.contains(&format!("\"{id}\""));
            let constant = constants
                .get(*id)
                .is_some_and(|name| code.contains(&format!("ids::{name}")));
            if !literal && !constant {
                problems.push(format!(
                    "{program}: input `{id}` is in the table, not in its code"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
