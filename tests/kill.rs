//! `ckg index` killed at any moment (SIGKILL) leaves the previously committed index intact
//! and usable: after each kill the export equals either the old generation or the new one,
//! never a mix, and the next run completes.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Repo, synth_repo};

/// Starts `ckg index .` in the repository and SIGKILLs it after `delay`.
fn kill_after(repo: &Repo, extra: &[&str], delay: Duration) -> std::process::ExitStatus {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ckg"))
        .args(["index", ".", "--quiet"])
        .args(extra)
        .current_dir(repo.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL
    child.wait().unwrap()
}

#[test]
fn sigkill_mid_index_leaves_the_last_committed_generation() {
    let repo = Repo::new();
    synth_repo(&repo, 400, 1);
    repo.index_json(&[]);
    let old = repo.export();

    // The expected new state, from a fresh index of the edited tree elsewhere.
    let edited = Repo::new();
    synth_repo(&edited, 400, 2);
    edited.index_json(&[]);
    let new = edited.export().replace(&edited.path().display().to_string(), &repo.path().display().to_string());

    synth_repo(&repo, 400, 2);
    let mut saw_old = 0;
    let mut delays = vec![5u64, 20, 50, 100, 200, 400, 800];
    let mut round = 0;
    while let Some(delay) = delays.first().copied() {
        delays.remove(0);
        round += 1;
        let status = kill_after(&repo, &["--jobs", "2"], Duration::from_millis(delay));
        let export = repo.export();
        if export == old {
            saw_old += 1;
        } else {
            assert_eq!(export, new, "round {round} (kill after {delay} ms, {status:?}): export is neither the old nor the new generation");
            break; // committed: nothing older to protect any more
        }
    }
    assert!(saw_old > 0, "no kill landed before the commit; the test proved nothing");
    repo.index_json(&[]);
    assert_eq!(repo.export(), new);
}

#[test]
fn sigkill_during_a_rebuild_keeps_the_old_index_and_leaves_no_debris() {
    let repo = Repo::new();
    synth_repo(&repo, 300, 1);
    repo.index_json(&[]);
    let old = repo.export();
    for delay in [5u64, 30, 80, 150, 300] {
        kill_after(&repo, &["--rebuild"], Duration::from_millis(delay));
        // The same tree: an interrupted or a finished rebuild both give the same export.
        assert_eq!(repo.export(), old, "kill after {delay} ms");
    }
    // Temporary files of killed builds are cleaned up by the next build.
    repo.index_json(&["--rebuild"]);
    let debris: Vec<_> = std::fs::read_dir(repo.path().join(".ckg"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(debris.is_empty(), "{debris:?}");
}
