//! The `Campaigns` and `Query` services: operators create campaigns, send quarantined
//! units back to work and clear distrusted identities; readers list campaigns and read
//! their statuses, statistics, hardest puzzles and placements.

use super::*;

#[tonic::async_trait]
impl pb::campaigns_server::Campaigns for Service {
    async fn create_campaign(
        &self,
        request: Request<pb::CreateCampaignRequest>,
    ) -> Result<Response<pb::CampaignStatus>, Status> {
        let caller = caller_name(&request);
        let request = request.into_inner();
        let name: CampaignName = request.name.parse().map_err(WireError::from)?;
        let span = rpc_span("CreateCampaign");
        span.record("campaign", name.as_str());
        let status = match exhaustive_from_request(&request)? {
            Some(exhaustive) => self.coordinator.create_exhaustive_campaign(exhaustive)?,
            None => self
                .coordinator
                .create_campaign(spec_from_request(request)?)?,
        };
        self.flusher.flushed().await?;
        span.in_scope(|| tracing::info!(by = caller.as_str(), "campaign created"));
        Ok(Response::new(status.into()))
    }

    async fn retry_units(
        &self,
        request: Request<pb::RetryUnitsRequest>,
    ) -> Result<Response<pb::RetryUnitsReply>, Status> {
        let caller = caller_name(&request);
        let request = request.into_inner();
        let name: CampaignName = request.campaign.parse().map_err(WireError::from)?;
        let span = rpc_span("RetryUnits");
        span.record("campaign", name.as_str());
        let released = self.coordinator.retry(&name, request.unit)?;
        self.flusher.flushed().await?;
        span.in_scope(|| {
            tracing::info!(
                by = caller.as_str(),
                units = released.len(),
                "quarantined units released"
            )
        });
        Ok(Response::new(pb::RetryUnitsReply { released }))
    }

    async fn trust_worker(
        &self,
        request: Request<pb::TrustWorkerRequest>,
    ) -> Result<Response<pb::TrustWorkerReply>, Status> {
        let caller = caller_name(&request);
        let identity = request.into_inner().identity;
        check_name("identity", &identity)?;
        let cleared = self.coordinator.trust(&identity)?;
        self.flusher.flushed().await?;
        tracing::info!(
            by = caller.as_str(),
            identity,
            cleared,
            "identity trusted again"
        );
        Ok(Response::new(pb::TrustWorkerReply { cleared }))
    }
}

#[tonic::async_trait]
impl pb::query_server::Query for Service {
    async fn list_campaigns(
        &self,
        _request: Request<pb::ListCampaignsRequest>,
    ) -> Result<Response<pb::ListCampaignsReply>, Status> {
        let campaigns = self
            .coordinator
            .campaign_names()
            .iter()
            .map(|name| self.coordinator.status(name).map(Into::into))
            .collect::<Result<_, _>>()?;
        Ok(Response::new(pb::ListCampaignsReply { campaigns }))
    }

    async fn get_campaign_status(
        &self,
        request: Request<pb::CampaignRequest>,
    ) -> Result<Response<pb::CampaignStatus>, Status> {
        let name = request.into_inner().campaign;
        Ok(Response::new(self.coordinator.status(&name)?.into()))
    }

    async fn get_stats(
        &self,
        request: Request<pb::CampaignRequest>,
    ) -> Result<Response<pb::Stats>, Status> {
        let name = request.into_inner().campaign;
        Ok(Response::new(self.coordinator.stats(&name)?.into()))
    }

    async fn get_hardest(
        &self,
        request: Request<pb::HardestRequest>,
    ) -> Result<Response<pb::HardestReply>, Status> {
        let request = request.into_inner();
        let limit = self.coordinator.config().query_limit(request.limit);
        let min_moves = moves_u8(request.min_moves, "minimum moves")?;
        let puzzles =
            self.coordinator
                .hardest(&request.campaign, limit.min(HARDEST_SHOWN), min_moves)?;
        Ok(Response::new(pb::HardestReply {
            puzzles: puzzles.into_iter().map(Into::into).collect(),
        }))
    }

    async fn find_puzzles(
        &self,
        request: Request<pb::FindPuzzlesRequest>,
    ) -> Result<Response<pb::FindPuzzlesReply>, Status> {
        let request = request.into_inner();
        let moves = moves_u8(request.min_moves, "minimum moves")?
            ..=moves_u8(request.max_moves, "maximum moves")?;
        let limit = self.coordinator.config().query_limit(request.limit);
        let coordinator = self.coordinator.clone();
        let campaign = request.campaign.clone();
        let found = tokio::task::spawn_blocking(move || {
            coordinator.find_puzzles(&request.campaign, moves, limit)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))??;
        Ok(Response::new(pb::FindPuzzlesReply {
            puzzles: found
                .into_iter()
                .map(|(seed, moves)| {
                    MinedPuzzle {
                        campaign: campaign.clone(),
                        seed,
                        moves,
                        solution: Vec::new(),
                        re_solved: false,
                    }
                    .into()
                })
                .collect(),
        }))
    }

    async fn find_placements(
        &self,
        request: Request<pb::FindPlacementsRequest>,
    ) -> Result<Response<pb::FindPlacementsReply>, Status> {
        let request = request.into_inner();
        let moves = moves_u8(request.min_moves, "minimum moves")?
            ..=moves_u8(request.max_moves, "maximum moves")?;
        let limit = self.coordinator.config().query_limit(request.limit);
        let found = self.coordinator.find_placements(
            &request.campaign,
            moves,
            limit,
            request.hardest_only,
        )?;
        Ok(Response::new(pb::FindPlacementsReply {
            placements: found.into_iter().map(Into::into).collect(),
        }))
    }

    async fn get_puzzle(
        &self,
        request: Request<pb::PuzzleRequest>,
    ) -> Result<Response<pb::MinedPuzzle>, Status> {
        let request = request.into_inner();
        let puzzle = self.coordinator.puzzle(&request.campaign, request.seed)?;
        Ok(Response::new(puzzle.into()))
    }
}
