//! Session ids: `YYYYMMDD-HHMMSS-<suffix>` from the time a session started, or from the
//! dataflow's id, and which names are ids at all.

/// A session id from a UTC time: `YYYYMMDD-HHMMSS-<suffix>`.
pub fn session_id(unix_secs: u64, suffix: u32) -> String {
    let days = (unix_secs / 86_400) as i64;
    let secs = unix_secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}-{suffix}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// The session id of a dataflow run, the same in every node of it:
/// `YYYYMMDD-HHMMSS-<last 6 hex digits>` from a time-ordered (v7) dataflow UUID, or
/// `run-<12 hex digits>` for other UUIDs.
pub fn session_id_for_dataflow(uuid: &str) -> String {
    let hex: String = uuid.chars().filter(char::is_ascii_hexdigit).collect();
    if hex.len() != 32 {
        let safe: String = uuid
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .take(32)
            .collect();
        return format!("run-{safe}");
    }
    let tail = &hex[26..];
    if hex.as_bytes()[12] == b'7' {
        let millis = u64::from_str_radix(&hex[..12], 16).unwrap_or(0);
        let full = session_id(millis / 1000, 0);
        let stamp = full.rsplit_once('-').map_or(full.as_str(), |(s, _)| s);
        return format!("{stamp}-{tail}");
    }
    format!("run-{}", &hex[20..])
}

/// Whether `id` is safe as a single folder name (no path escape, no hidden files).
pub fn is_valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Days since 1970-01-01 to a (year, month, day) civil date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
