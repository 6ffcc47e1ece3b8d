// Bodies that survive a cut: what the runner and the adapters use to give the caller a body that goes on.

export type { ResponseBody } from '../../http/response-body.js';
export { ResumeError, type ResumeErrorCode } from './errors.js';
export { EventStream } from './event-stream.js';
export {
  type NodeReadableLike,
  receivedHeaders,
  resumeReadable,
  type StreamResponse,
} from './node.js';
export { checkResume, RESUME_DEFAULTS, type ResolvedResumeOptions, type ResumeOptions } from './options.js';
export {
  type ContentRange,
  ifRangeValidator,
  judgeRange,
  parseContentRange,
  type RangeBody,
  rangeBody,
  rangeRequest,
} from './ranges.js';
export {
  isEventStream,
  type Part,
  type Reopen,
  type ReopenRequest,
  type ResumeCall,
  resumable,
  Splicer,
} from './splicer.js';
export { partOf, resumeStream } from './stream.js';
export { resumeBody, resumeResponse } from './web.js';
