//! espeak-ng from the system, text on stdin (never as arguments: a leading `-` is a word,
//! not an option), every call bounded by a deadline.

use std::{
    io::{Read, Write},
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

use eyre::{Context, bail};

/// The most of espeak-ng's stderr kept for an error message.
const STDERR_KEPT: usize = 2_000;

/// How long a killed espeak-ng may take to be reaped before it is left behind.
const REAP_GRACE: Duration = Duration::from_secs(2);

/// Fails when espeak-ng is missing, naming what installs it.
pub fn check_installed() -> eyre::Result<()> {
    let status = Command::new("espeak-ng")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => Ok(()),
        _ => bail!("espeak-ng is not installed (run scripts/setup.sh, or set TTS_BACKEND)"),
    }
}

/// What the helper threads of one call report.
enum Piped {
    Written(std::io::Result<()>),
    Stdout(std::io::Result<Vec<u8>>),
    Stderr(String),
}

/// Runs `espeak-ng ARGS` with `text` on stdin and returns its stdout; a call still
/// running after `timeout` is killed.
pub fn run(args: &[&str], text: &str, timeout: Duration) -> eyre::Result<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let mut child = Command::new("espeak-ng")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run espeak-ng (run scripts/setup.sh)")?;
    // espeak-ng writes while it still reads: stdin, stdout and stderr are served at the
    // same time, or a long text fills one pipe while the other waits.
    let (tx, rx) = crossbeam_channel::bounded(3);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let bytes = text.as_bytes().to_vec();
    let writer = tx.clone();
    std::thread::spawn(move || {
        // Dropping stdin afterwards closes it: espeak-ng speaks once it sees the end.
        let _ = writer.send(Piped::Written(stdin.write_all(&bytes)));
    });
    let reader = tx.clone();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = reader.send(Piped::Stdout(stdout.read_to_end(&mut buf).map(|_| buf)));
    });
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut stderr)
            .take(STDERR_KEPT as u64)
            .read_to_end(&mut kept);
        // Drain the rest so espeak-ng never blocks on a full stderr.
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        let _ = tx.send(Piped::Stderr(
            String::from_utf8_lossy(&kept).trim().to_owned(),
        ));
    });

    let Some(status) = wait_until(&mut child, deadline)? else {
        let _ = child.kill();
        let _ = wait_until(&mut child, Instant::now() + REAP_GRACE);
        bail!(
            "espeak-ng {} did not finish within {timeout:?} ({} characters); killed",
            args.join(" "),
            text.chars().count()
        );
    };
    // The pipes close when espeak-ng exits; still, never wait past the deadline.
    let (mut written, mut output, mut errors) = (None, None, None);
    while written.is_none() || output.is_none() || errors.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Piped::Written(r)) => written = Some(r),
            Ok(Piped::Stdout(r)) => output = Some(r),
            Ok(Piped::Stderr(e)) => errors = Some(e),
            Err(_) => bail!("espeak-ng exited but its pipes stayed open past {timeout:?}"),
        }
    }
    let errors = errors.unwrap_or_default();
    if !status.success() {
        bail!("espeak-ng {} failed ({status}): {errors}", args.join(" "));
    }
    written
        .expect("received above")
        .context("espeak-ng did not read all of its text")?;
    output
        .expect("received above")
        .context("cannot read espeak-ng's output")
}

/// The child's exit status, or `None` when it is still running at `deadline`.
fn wait_until(child: &mut Child, deadline: Instant) -> eyre::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for espeak-ng")? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// espeak-ng's IPA for `lines` (one clause per line), one output line per clause when
/// espeak-ng cuts where the lines do. `voice` is the language (`en-us`).
pub fn phonemes(voice: &str, lines: &[&str], timeout: Duration) -> eyre::Result<Vec<String>> {
    let text = lines.join("\n");
    let out = run(&["-q", "--ipa=3", "-v", voice], &text, timeout)?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}
