//! The `Mining` service: workers register, lease units, report progress and submit
//! results, each call speaking for a registered worker (see `Service::worker`).

use super::*;

#[tonic::async_trait]
impl pb::mining_server::Mining for Service {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterReply>, Status> {
        let caller = request.extensions().get::<Caller>().cloned();
        let request = request.into_inner();
        check_name("worker name", &request.name)?;
        let ours = env!("CARGO_PKG_VERSION");
        if request.version != ours {
            return Err(Status::failed_precondition(clipped(format!(
                "worker version {:?} does not match coordinator version {ours}",
                request.version
            ))));
        }
        // With tokens, the token's name is the worker's identity; what it calls itself
        // is only logged.
        let session = self.coordinator.register(
            caller.map(|caller| caller.name),
            &request.name,
            request.threads,
        )?;
        let worker = self.worker(None, session.worker, &session.secret)?;
        let span = rpc_span("Register");
        span.record("worker", worker.identity.as_str());
        span.in_scope(|| {
            tracing::info!(worker_id = worker.id, instance = %request.name, threads = request.threads, "worker registered")
        });
        let config = self.coordinator.config();
        Ok(Response::new(pb::RegisterReply {
            worker_id: session.worker,
            session: session.secret.to_vec(),
            lease_seconds: config.lease_duration.as_secs().max(1) as u32,
            heartbeat_seconds: config.heartbeat_interval().as_secs().max(1) as u32,
        }))
    }

    async fn lease(
        &self,
        request: Request<pb::LeaseRequest>,
    ) -> Result<Response<pb::LeaseReply>, Status> {
        let started = Instant::now();
        let span = rpc_span("Lease");
        let worker = self.worker(
            request.extensions().get(),
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        // Not flushed: a lease lost in a crash only means its unit is leased again (units
        // after the last stored record count as never leased) and its holder's result
        // is refused as naming an unknown lease.
        let assignment = self.coordinator.lease(&worker)?;
        if let Some(assignment) = &assignment {
            span.record("campaign", assignment.lease.campaign.as_str());
            span.record("unit", assignment.lease.unit);
            span.in_scope(|| tracing::debug!(lease = assignment.lease.lease, "leased"));
        }
        let stages = self.coordinator.metrics().stages();
        stages.since(Stage::LeaseCall, started);
        let remaining = match assignment {
            Some(_) => Remaining::Work,
            None => self.coordinator.remaining_for(&worker.identity),
        };
        Ok(Response::new(pb::LeaseReply {
            retry_after_ms: if assignment.is_none() { 1000 } else { 0 },
            campaigns_done: remaining == Remaining::Nothing,
            only_others_checks_left: remaining == Remaining::OthersChecks,
            unit: assignment.map(Into::into),
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatReply>, Status> {
        let span = rpc_span("Heartbeat");
        let worker = self.worker(
            request.extensions().get(),
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        let request = request.into_inner();
        let leases = (request.leases.into_iter())
            .map(LeaseRef::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        let (lost, deadline) = self
            .coordinator
            .heartbeat(&worker, &leases, &request.seeds_solved);
        if !lost.is_empty() {
            span.in_scope(|| tracing::debug!(lost = lost.len(), "leases lost"));
        }
        Ok(Response::new(pb::HeartbeatReply {
            lost: lost.into_iter().map(Into::into).collect(),
            deadline_unix_ms: deadline,
        }))
    }

    async fn submit(
        &self,
        request: Request<pb::SubmitRequest>,
    ) -> Result<Response<pb::SubmitReply>, Status> {
        let started = Instant::now();
        let span = rpc_span("Submit");
        let caller = request.extensions().get::<Caller>();
        let own_process = caller.is_some_and(|caller| caller.own_process);
        let worker = self.worker(
            caller,
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        let request = request.into_inner();
        self.check_bounds(&request)?;
        let mut submission = Submission::try_from(request)?;
        submission.identity = worker.identity;
        submission.own_process = own_process;
        span.record("campaign", submission.lease.campaign.as_str());
        span.record("unit", submission.lease.unit);
        // Submissions have seeds solved again (record candidates; spot checks unless from
        // this process's own worker): off the async threads.
        let stages = self.coordinator.metrics().stages();
        let asked = Instant::now();
        let permit = self
            .checking
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("the coordinator is stopping"))?;
        let permitted = Instant::now();
        stages.record(Stage::CheckPermit, permitted - asked);
        let coordinator = self.coordinator.clone();
        let checking = span.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let started = Instant::now();
            let stages = coordinator.metrics().stages();
            stages.record(Stage::BlockingQueue, started - permitted);
            let outcome = checking.in_scope(|| coordinator.submit(submission));
            stages.since(Stage::Checking, started);
            outcome
        })
        .await
        .map_err(|e| Status::internal(format!("checking the submission failed: {e}")))??;
        // Acknowledged only once on disk.
        self.flusher.flushed().await?;
        stages.since(Stage::SubmitCall, started);
        span.in_scope(|| tracing::debug!(?outcome, "submitted"));
        Ok(Response::new(pb::SubmitReply {
            outcome: pb::SubmitOutcome::from(outcome).into(),
        }))
    }
}
