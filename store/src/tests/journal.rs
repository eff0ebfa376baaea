//! The journal: its records read back in order up to a torn or corrupt one, its files
//! rotated; and crash images, store directories whose sled files are older than their
//! journal, as a crash leaves them when sled had not written what the journal holds.
//! Opening one must replay exactly the groups sled lacks, whole, and no torn one.

use super::*;
use crate::journal::{parse_record, read, Change, Journal, Table, INTENT_KEY};
use crate::portable::hex;
use std::fs::File;
use std::path::Path;

/// Copies every file of store directory `from` into `to` whose name passes `wanted`.
fn copy_files(from: &Path, to: &Path, wanted: impl Fn(&str) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_file() && wanted(&name) {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

fn is_journal(name: &str) -> bool {
    name.starts_with("journal-")
}

fn export(store: &Store) -> String {
    let mut out = Vec::new();
    store.export(&mut out, &mut || {}).unwrap();
    String::from_utf8(out).unwrap()
}

/// A store with a campaign and a checkpoint, then `units` results and a trust written
/// after it and flushed: the copy taken at the checkpoint with the journal's files and
/// the acknowledged mark copied over it is what a crash before sled wrote anything
/// leaves.
fn crash_image(units: u64) -> (tempfile::TempDir, Store, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let image = dir.path().join("image");
    let store = Store::open(&live).unwrap();
    let campaign = store.create_campaign(spec("a"), 0).unwrap();
    store
        .distrust(&Distrust {
            identity: "mallory".into(),
            reason: "forged".into(),
            since_unix_ms: 1,
        })
        .unwrap();
    store.checkpoint_journal().unwrap();
    copy_files(&live, &image, |name| !is_journal(name));
    let counts: Vec<u8> = (0..100).map(|i| (i % 11) as u8 + 1).collect();
    let robots = vec![1; 100];
    for unit in 0..units {
        let hardest = [HardEntry {
            seed: unit * 100 + 1,
            moves: counts[1],
            solution: vec!["RN".into()],
            re_solved: false,
        }];
        commit_done(
            &store,
            campaign.id,
            unit,
            unit + 1,
            &counts,
            &robots,
            &hardest,
        );
    }
    assert!(store.trust("mallory").unwrap());
    store.flush_blocking().unwrap();
    copy_files(&live, &image, |name| is_journal(name) || name == MARK_FILE);
    (dir, store, image)
}

#[test]
fn a_crash_image_replays_every_flushed_group_and_matches_the_live_store() {
    let (_dir, live, image) = crash_image(5);
    let recovered = Store::open(&image).unwrap();
    // Five results and the trust, each one group.
    assert_eq!(recovered.replayed_groups(), 6);
    assert_eq!(recovered.last_commit().unwrap(), 5);
    assert_eq!(recovered.commits_after(0).unwrap().len(), 5);
    assert!(recovered.distrusted().unwrap().is_empty());
    assert_eq!(export(&recovered), export(&live));
    // Replayed groups are in sled now: the next opening has none to replay.
    drop(recovered);
    let reopened = Store::open(&image).unwrap();
    assert_eq!(reopened.replayed_groups(), 0);
    assert_eq!(export(&reopened), export(&live));
}

#[test]
fn a_torn_group_is_left_out_whole() {
    let (_dir, _live, image) = crash_image(3);
    let journal = std::fs::read_dir(&image)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| is_journal(path.file_name().unwrap().to_str().unwrap()))
        .unwrap();
    // The last group is the trust; tear the one before it, a result, in its middle, so
    // that neither comes back, nor any part of the result.
    let bytes = std::fs::read(&journal).unwrap();
    let trust_group = 8 + 8 + 1 + 4 + "mallory".len() + 1;
    let torn = bytes.len() - trust_group - 40;
    std::fs::write(&journal, &bytes[..torn]).unwrap();
    // The torn result was acknowledged: the store is damaged and says so.
    match Store::open(&image) {
        Err(StoreError::BehindMark {
            acknowledged: 3,
            last: 2,
            ..
        }) => {}
        other => panic!(
            "expected the store to be behind its mark: {:?}",
            other.err()
        ),
    }
    assert!(journal.exists(), "a refused store keeps its journal");
    // Had the crash come before its flush, the store opens with the whole groups (its
    // sled files were copied before it ever wrote a mark).
    std::fs::remove_file(image.join(MARK_FILE)).unwrap();
    let recovered = Store::open(&image).unwrap();
    assert_eq!(recovered.last_commit().unwrap(), 2);
    assert_eq!(recovered.unit_results(1, 2).unwrap(), None);
    assert!(recovered
        .hardest(1, 10, 0)
        .unwrap()
        .iter()
        .all(|e| e.seed != 201));
    assert_eq!(recovered.units(1).unwrap().len(), 2);
    assert_eq!(recovered.distrusted().unwrap().len(), 1);
}

#[test]
fn a_store_closed_cleanly_leaves_no_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journals = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|entry| is_journal(entry.as_ref().unwrap().file_name().to_str().unwrap()))
            .count()
    };
    let store = Store::open(dir.path()).unwrap();
    store.create_campaign(spec("a"), 0).unwrap();
    assert_eq!(journals(), 1);
    drop(store);
    assert_eq!(journals(), 0);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.replayed_groups(), 0);
    assert_eq!(store.campaigns().unwrap().len(), 1);
}

#[test]
fn acknowledged_results_live_in_the_journal_until_sled_has_them() {
    let (_dir, _live, image) = crash_image(4);
    for entry in std::fs::read_dir(&image).unwrap() {
        let path = entry.unwrap().path();
        if is_journal(path.file_name().unwrap().to_str().unwrap()) {
            std::fs::remove_file(path).unwrap();
        }
    }
    // The mark says four commits were acknowledged; sled alone has none of them.
    match Store::open(&image) {
        Err(StoreError::BehindMark {
            acknowledged: 4,
            last: 0,
            ..
        }) => {}
        other => panic!(
            "expected the store to be behind its mark: {:?}",
            other.err()
        ),
    }
}

fn changes() -> Vec<Change> {
    vec![
        Change::put(Table::Units, b"unit", vec![1, 2, 3]),
        Change::remove(Table::Hardest, b"gone"),
        Change::put(Table::Distrusted, b"", Vec::new()),
    ]
}

#[test]
fn groups_read_back_in_order_up_to_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::start(dir.path(), 4).unwrap();
    for _ in 0..3 {
        journal.lock().append(&changes());
    }
    journal.sync().unwrap();
    let (groups, files) = read(dir.path(), 0).unwrap();
    assert_eq!(files.len(), 1);
    let numbers: Vec<u64> = groups.iter().map(|(n, _)| *n).collect();
    // Groups 1 to 4 are missing: nothing is applied past the gap.
    assert!(numbers.is_empty());
    let (groups, _) = read(dir.path(), 4).unwrap();
    assert_eq!(
        groups.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [5, 6, 7]
    );
    assert!(groups.iter().all(|(_, c)| *c == changes()));
    let (groups, _) = read(dir.path(), 6).unwrap();
    assert_eq!(groups.len(), 1);

    // Tear the last record: only the whole ones come back.
    let path = &files[0];
    let length = std::fs::metadata(path).unwrap().len();
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(length - 3)
        .unwrap();
    let (groups, _) = read(dir.path(), 4).unwrap();
    assert_eq!(groups.len(), 2);
    // A flipped byte fails the CRC of its record, and nothing after it is read.
    let mut bytes = std::fs::read(path).unwrap();
    bytes[10] ^= 1;
    std::fs::write(path, bytes).unwrap();
    assert!(read(dir.path(), 4).unwrap().0.is_empty());
}

#[test]
fn rotation_continues_numbering_in_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::start(dir.path(), 0).unwrap();
    journal.lock().append(&changes());
    let closed = journal.rotate().unwrap();
    assert_eq!(closed.len(), 1);
    journal.lock().append(&changes());
    journal.sync().unwrap();
    let (groups, files) = read(dir.path(), 0).unwrap();
    assert_eq!(groups.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(files.len(), 2);
    journal.retire(closed).unwrap();
    let (groups, files) = read(dir.path(), 1).unwrap();
    assert_eq!(groups.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [2]);
    assert_eq!(files.len(), 1);
}

#[test]
fn a_group_sled_kept_in_part_is_completed_from_its_intent() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let image = dir.path().join("image");
    let store = Store::open(&live).unwrap();
    let campaign = store.create_campaign(spec("a"), 0).unwrap();
    store.checkpoint_journal().unwrap();
    copy_files(&live, &image, |name| !is_journal(name));
    let counts = vec![5; 100];
    let hardest = [HardEntry {
        seed: 7,
        moves: 5,
        solution: vec!["RN".into()],
        re_solved: false,
    }];
    commit_done(&store, campaign.id, 3, 1, &counts, &[1; 100], &hardest);
    let intent = store
        .table(Table::Meta)
        .unwrap()
        .get(INTENT_KEY)
        .unwrap()
        .unwrap();
    let ((number, changes), rest) = parse_record(&intent).unwrap();
    assert!(rest.is_empty() && changes.len() == 4);
    drop(store);
    // sled wrote the intent and the first change, the journal nothing.
    {
        let db = sled::Config::new()
            .path(&image)
            .segment_size(files::SEGMENT)
            .open()
            .unwrap();
        let meta = db.open_tree(Table::Meta.name()).unwrap();
        meta.insert(INTENT_KEY, intent.clone()).unwrap();
        let first = &changes[0];
        db.open_tree(first.table.name())
            .unwrap()
            .insert(&first.key, first.value.clone().unwrap())
            .unwrap();
        db.flush().unwrap();
    }
    let recovered = Store::open(&image).unwrap();
    assert_eq!(recovered.replayed_groups(), 1);
    assert_eq!(
        recovered.files().unwrap().journal.lock().last_group(),
        number
    );
    assert_eq!(
        recovered.unit_results(campaign.id, 3).unwrap(),
        Some((counts, vec![1; 100]))
    );
    assert_eq!(recovered.commits_after(0).unwrap(), [(1, campaign.id, 3)]);
    assert_eq!(recovered.hardest(campaign.id, 10, 0).unwrap().len(), 1);
}

#[test]
fn checkpoints_with_nothing_written_keep_the_active_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.create_campaign(spec("a"), 0).unwrap();
    store.checkpoint_journal().unwrap();
    store.checkpoint_journal().unwrap();
    store.checkpoint_journal().unwrap();
    let files = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|entry| is_journal(entry.as_ref().unwrap().file_name().to_str().unwrap()))
            .count()
    };
    assert_eq!(files(), 1);
    // What is written after them is in the file a crash image would read.
    store.create_campaign(spec("b"), 0).unwrap();
    store.flush_blocking().unwrap();
    let (groups, _) = read(dir.path(), 2).unwrap();
    assert_eq!(groups.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [3]);
}

#[test]
fn an_export_naming_a_journal_position_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("from")).unwrap();
    store.create_campaign(spec("a"), 0).unwrap();
    let exported = export(&store);
    let (end, entries) = exported
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(end, rest)| (end.to_string(), rest.to_vec()))
        .unwrap();
    // A meta entry under the journal's key, with the end line made to match it.
    let meta = entries
        .iter()
        .find(|line| line.contains(r#""tree":"meta""#))
        .unwrap();
    let mut forged: serde_json::Value = serde_json::from_str(meta).unwrap();
    forged["key"] = hex(INTENT_KEY).into();
    let mut lines: Vec<String> = entries.iter().map(|line| line.to_string()).collect();
    lines.push(forged.to_string());
    let mut hash = <sha2::Sha256 as sha2::Digest>::new();
    for line in &lines {
        sha2::Digest::update(&mut hash, format!("{line}\n").as_bytes());
    }
    let mut end: serde_json::Value = serde_json::from_str(&end).unwrap();
    end["entries"] = (lines.len() - 1).into();
    end["sha256"] = hex(&sha2::Digest::finalize(hash)).into();
    lines.push(end.to_string());
    let file = dir.path().join("forged.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();

    let target = Store::open(&dir.path().join("to")).unwrap();
    let refused = target.import(&file, &mut || {}).unwrap_err();
    assert!(
        refused.to_string().contains("journal position"),
        "{refused}"
    );
    // Without the forged line the same export imports.
    let honest = dir.path().join("honest.jsonl");
    std::fs::write(&honest, &exported).unwrap();
    let other = Store::open(&dir.path().join("other")).unwrap();
    other.import(&honest, &mut || {}).unwrap();
    assert_eq!(export(&other), exported);
}

/// Deleting the mark used to turn the lost-results check off: a missing mark was taken
/// for a store from before marks. A store that has had one is refused without it.
#[test]
fn a_store_that_had_a_mark_refuses_to_open_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let campaign = store.create_campaign(spec("a"), 0).unwrap();
    let counts = vec![3u8; 100];
    commit_done(&store, campaign.id, 0, 1, &counts, &[1; 100], &[]);
    store.flush_blocking().unwrap();
    drop(store);
    let mark = dir.path().join(MARK_FILE);
    let kept = std::fs::read(&mark).unwrap();
    std::fs::remove_file(&mark).unwrap();
    match Store::open(dir.path()) {
        Err(error @ StoreError::MarkMissing { .. }) => {
            assert!(
                error.to_string().contains(&mark.display().to_string()),
                "{error}"
            );
        }
        other => panic!("expected a missing mark: {:?}", other.err()),
    }
    std::fs::write(&mark, kept).unwrap();
    assert_eq!(Store::open(dir.path()).unwrap().last_commit().unwrap(), 1);
}
