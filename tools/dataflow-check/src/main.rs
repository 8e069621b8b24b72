//! `dataflow-check F...`: for each dataflow, every participant that lacks its turn
//! giver's input, its segmenter input, its recorder entry or a bridge, and every input
//! without `queue_policy: backpressure`, and every setting its program does not read (a
//! misspelt name), each with the YAML to add (see
//! [`dataflow_wiring`]). Exit status: 0 when nothing lacks, 1 when something does, 2
//! when a file cannot be read as a dataflow.

use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: dataflow-check DATAFLOW.yml...");
        return ExitCode::from(2);
    }
    let mut lacking = false;
    let mut unreadable = false;
    for file in &files {
        let findings = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|yaml| dataflow_wiring::check(&yaml).map_err(|e| e.to_string()));
        match findings {
            Ok(findings) if findings.is_empty() => println!("{file}: complete"),
            Ok(findings) => {
                lacking = true;
                println!("{file}: {} to add", findings.len());
                for finding in findings {
                    println!("  {finding}");
                }
            }
            Err(e) => {
                unreadable = true;
                eprintln!("{file}: {e}");
            }
        }
    }
    if unreadable {
        ExitCode::from(2)
    } else if lacking {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
