import { useEffect } from 'react';
import { usePublicConfigQuery } from '../../api/config.queries.ts';
import type { Offer } from './landing-content.ts';

/** Fetches the server's offer (GET /api/config) for a landing page rendered without it; renders nothing. */
export function OfferQuery({ onOffer }: { onOffer(offer: Offer): void }) {
  const offer = usePublicConfigQuery().data?.offer;
  useEffect(() => {
    if (offer) onOffer(offer);
  }, [offer, onOffer]);
  return null;
}
