import { clockTime } from '../format.js';

/**
 * Use of an hourly cap: "7 of 20 attempts this hour", and when a slot frees once the cap is
 * reached. Caps count attempts started in the last 60 minutes, retries included.
 */
export function Meter({ used, cap, nextSlotAt }: { used: number; cap: number | null; nextSlotAt: string | null }) {
  const full = cap !== null && used >= cap;
  return (
    <div className="meter">
      <div className="meter-text">
        {cap === null ? `${used} ${used === 1 ? 'attempt' : 'attempts'} this hour · no cap` : `${used} of ${cap} attempts this hour`}
        {nextSlotAt && <span className="meter-next"> · full, next slot frees at {clockTime(nextSlotAt)}</span>}
      </div>
      {cap !== null && (
        <div className="meter-bar" role="meter" aria-valuemin={0} aria-valuemax={cap} aria-valuenow={used} aria-label="Hourly use">
          <div className={full ? 'meter-fill full' : 'meter-fill'} style={{ width: `${cap === 0 ? 100 : Math.min(100, (used / cap) * 100)}%` }} />
        </div>
      )}
    </div>
  );
}
