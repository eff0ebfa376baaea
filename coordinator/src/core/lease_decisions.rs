//! Leases decided without a store: which unit a worker gets next, which leases expired
//! or stalled, which a heartbeat extends, and what an operator's retry or a dead
//! embedded worker releases.
//!
//! Every decision that changes a unit is a list of [`Change`]s (the unit's new record
//! and what happened to it); `leasing` stores each one before memory takes it. Time
//! comes from the caller as a [`Now`], so the tests move the clock by hand.

use super::campaign_state::{current_lease, current_lease_mut, CampaignState, Kind};
use super::exhaustive::unit_work;
use super::quotas::{Credit, LeaseStalls};
use super::{CoordinatorError, Result, Worker};
use rrm_model::{Assignment, Lease, LeaseRef, UnitRecord, UnitState, Verification, Work};
use std::time::{Duration, Instant};

/// The clock, read once by the caller: wall time for deadlines, a monotonic instant for
/// progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct Now {
    pub unix_ms: i64,
    pub instant: Instant,
}

impl Now {
    pub(super) fn read() -> Now {
        Now {
            unix_ms: crate::unix_ms(),
            instant: Instant::now(),
        }
    }
}

/// The settings leasing follows (from [`crate::Config`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Policy {
    /// A lease whose progress stops growing this long expires whatever its heartbeats;
    /// also the life of a lease before its campaign has measured its units.
    pub stall_timeout: Duration,
    /// The shortest life a lease is given, however fast the campaign's units.
    pub life_floor: Duration,
    /// Identities that may fail a unit before it is quarantined.
    pub max_failures: u32,
    /// Solutions a seed unit's worker keeps.
    pub top_count: u32,
}

/// How a lease's life is set, for the charge of one that outlived it.
const LIFE_WORDS: &str =
    "three times this campaign's 95th-percentile unit time (at most four medians)";

/// What happened to a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    Leased,
    Expired,
    /// Expired, and failed by so many identities that it is quarantined.
    Quarantined,
    /// Given back without a failure (an operator's retry, a dead embedded worker).
    Released,
}

/// A unit's new record, to be stored before memory takes it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Change {
    pub unit: u64,
    pub record: UnitRecord,
    pub event: Event,
}

/// Leases `campaign`'s next unit to `worker` until `deadline_unix_ms`: a done unit
/// awaiting a check by `worker`'s identity (picked for it, see [`pick_checkers`]; never
/// its producer's), then a unit waiting (again, or since an import recorded the units
/// before its own; one its identity failed only when nothing else is left), then a
/// fresh one. Checks come first: a forgery is found while its producer is still at
/// work, and a campaign whose units wait (all of them, once an import went past them)
/// does not leave its checks to its last hour.
pub(super) fn next(
    campaign: &CampaignState,
    worker: &Worker,
    deadline_unix_ms: i64,
    policy: &Policy,
) -> Result<Option<(Change, Assignment)>> {
    let failed_here = |unit: &u64| campaign.records[unit].failed_by.contains(&worker.identity);
    let to_check = campaign.to_verify.iter().copied().find(|unit| {
        matches!(&campaign.records[unit].state, UnitState::Done { producer, .. } if *producer != worker.identity)
            && campaign.checkers.get(unit) == Some(&worker.identity)
    });
    let spec = &campaign.campaign.spec;
    let fresh = (campaign.next_unit < spec.units_total()).then_some(campaign.next_unit);
    let Some(unit) = to_check
        .or_else(|| (campaign.pending.iter().copied()).find(|unit| !failed_here(unit)))
        .or(fresh)
        .or_else(|| campaign.pending.first().copied())
    else {
        return Ok(None);
    };
    let work = match &campaign.kind {
        Kind::Seeds(dealer) => Work::Seeds {
            generator: dealer.generator,
            rules: dealer.rules,
            seeds: spec.unit_seeds(unit),
            record_threshold: spec.record_threshold,
            top_count: crate::kept_per_unit(policy.top_count, spec.unit_size),
        },
        Kind::Exhaustive(exhaustive) => Work::Exhaustive(unit_work(exhaustive, unit).ok_or(
            CoordinatorError::UnknownUnit {
                campaign: spec.name.to_string(),
                unit,
            },
        )?),
    };
    let mut record = campaign
        .records
        .get(&unit)
        .cloned()
        .unwrap_or_else(UnitRecord::fresh);
    record.leases_issued += 1;
    let lease = Lease {
        number: record.leases_issued,
        worker: worker.id,
        identity: worker.identity.clone(),
        deadline_unix_ms,
    };
    match &mut record.state {
        UnitState::Done { verification, .. } => *verification = Verification::Leased(lease),
        state => *state = UnitState::Leased(lease),
    }
    let assignment = Assignment {
        lease: LeaseRef {
            campaign: spec.name.clone(),
            unit,
            lease: record.leases_issued,
        },
        work,
        deadline_unix_ms,
    };
    let change = Change {
        unit,
        record,
        event: Event::Leased,
    };
    Ok(Some((change, assignment)))
}

/// Moves the deadline of `lease` to `deadline_unix_ms` if `identity` still holds it;
/// returns the work its unit has (what a heartbeat may report solved of it), or `None`
/// for a lease lost. Deadlines live in memory only: nothing is stored.
pub(super) fn extend(
    campaign: &mut CampaignState,
    lease: &LeaseRef,
    worker: &Worker,
    deadline_unix_ms: i64,
) -> Option<u64> {
    let work = campaign.unit_work_size(lease.unit);
    let held = campaign
        .records
        .get_mut(&lease.unit)
        .and_then(current_lease_mut)
        .filter(|held| held.number == lease.lease && held.identity == worker.identity)?;
    held.deadline_unix_ms = deadline_unix_ms;
    // Its holder's identity registered again (after a restart): the lease is its new
    // registration's from now on (memory only, as deadlines are).
    held.worker = worker.id;
    Some(work)
}

/// Takes back the leases of `campaign` that expired by `now` or stalled: a stall
/// (progress not grown for [`Policy::stall_timeout`], whatever the heartbeats) is
/// hoarding, charged to the unit and to its holder's lease credit, and so is a lease
/// older than the campaign's lease life (`CampaignState::lease_life`), whatever
/// progress its holder reports. Two expiries are no
/// fault of the unit's, so it goes back without a failure: a lease no heartbeat ever
/// named (its reply may have been lost), and one held by a registration `registered`
/// does not know (granted before a restart: its holder registered again and cannot
/// hand it in). A done unit's expired check goes back to waiting for a checker.
pub(super) fn expired(
    campaign: &CampaignState,
    now: Now,
    registered: impl Fn(u64) -> bool,
    (stalls, credit): (&mut LeaseStalls, &mut Credit),
    policy: &Policy,
) -> Vec<Change> {
    let mut changes = Vec::new();
    let life = campaign.lease_life(policy.life_floor, policy.stall_timeout);
    for &unit in &campaign.leased {
        let Some(lease) = current_lease(&campaign.records[&unit]) else {
            continue;
        };
        let reference = LeaseRef {
            campaign: campaign.campaign.spec.name.clone(),
            unit,
            lease: lease.number,
        };
        let why = if lease.deadline_unix_ms < now.unix_ms {
            let why = format!("lease {} expired", lease.number);
            stalls.heard(&reference).then_some(why)
        } else if stalls.stalled(&reference, policy.stall_timeout, now.instant) {
            let limit = policy.stall_timeout.as_secs();
            credit.forfeited(&lease.identity, now.instant);
            Some(format!(
                "lease {} made no progress for {limit} s",
                lease.number
            ))
        } else if stalls.age(&reference, now.instant) >= life {
            // Progress is the holder's word; its life is what the campaign measured.
            credit.forfeited(&lease.identity, now.instant);
            Some(format!(
                "lease {} outlived {:.1} s, {LIFE_WORDS}",
                lease.number,
                life.as_secs_f64()
            ))
        } else {
            continue;
        };
        let mut record = campaign.records[&unit].clone();
        match &mut record.state {
            UnitState::Done { verification, .. } => *verification = Verification::Pending,
            state => {
                let holder = Some(lease.clone()).filter(|lease| registered(lease.worker));
                *state = UnitState::Pending {
                    expired: Some(lease.clone()),
                };
                if let (Some(holder), Some(why)) = (holder, why) {
                    record.charge_failure(&holder.identity, why, policy.max_failures);
                }
            }
        }
        let event = match record.state {
            UnitState::Quarantined => Event::Quarantined,
            _ => Event::Expired,
        };
        changes.push(Change {
            unit,
            record,
            event,
        });
    }
    changes
}

/// Every lease out of `campaign` back to waiting, without a failure: for a store whose
/// only worker died with its process (the embedded `rrm mine`).
pub(super) fn released(campaign: &CampaignState) -> Vec<Change> {
    campaign
        .leased
        .iter()
        .map(|&unit| {
            let mut record = campaign.records[&unit].clone();
            match &mut record.state {
                UnitState::Done { verification, .. } => *verification = Verification::Pending,
                state => *state = UnitState::Pending { expired: None },
            }
            Change {
                unit,
                record,
                event: Event::Released,
            }
        })
        .collect()
}

/// `campaign`'s quarantined units (just `unit`, if given) back to waiting with their
/// failures forgotten, on an operator's word.
pub(super) fn retried(campaign: &CampaignState, unit: Option<u64>) -> Result<Vec<Change>> {
    let quarantined = |unit: &u64| {
        campaign
            .records
            .get(unit)
            .is_some_and(|record| record.state == UnitState::Quarantined)
    };
    let units: Vec<u64> = match unit {
        Some(unit) if quarantined(&unit) => vec![unit],
        Some(unit) => return Err(CoordinatorError::NotQuarantined(unit)),
        None => campaign
            .records
            .keys()
            .copied()
            .filter(quarantined)
            .collect(),
    };
    Ok(units
        .into_iter()
        .map(|unit| {
            let mut record = campaign.records[&unit].clone();
            record.state = UnitState::Pending { expired: None };
            record.failed_by.clear();
            Change {
                unit,
                record,
                event: Event::Released,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests;

/// Picks the identity that checks each unit awaiting a check, among `registered` (the
/// identities registered now) but its producer, in secret: a check goes to the identity
/// the coordinator picks, not to whoever asks first, so that a forger's colluder cannot
/// make a point of checking its units. A pick whose identity is gone is made again; a
/// unit whose producer is the only one registered waits unpicked until another
/// registers. Looks at the first `limit` units awaiting a check, so that a long queue
/// costs a lease little (the others wait their turn).
pub(super) fn pick_checkers(
    campaign: &mut CampaignState,
    registered: &std::collections::BTreeSet<&str>,
    limit: usize,
    mut draw: impl FnMut() -> f64,
) {
    for &unit in campaign.to_verify.iter().take(limit) {
        let UnitState::Done { producer, .. } = &campaign.records[&unit].state else {
            continue;
        };
        if (campaign.checkers.get(&unit)).is_some_and(|picked| registered.contains(picked.as_str()))
        {
            continue;
        }
        let others: Vec<&str> = (registered.iter().copied())
            .filter(|identity| identity != producer)
            .collect();
        if others.is_empty() {
            campaign.checkers.remove(&unit);
            continue;
        }
        let pick = others[((draw() * others.len() as f64) as usize).min(others.len() - 1)];
        campaign.checkers.insert(unit, pick.to_string());
    }
}
