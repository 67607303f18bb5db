import { DomainError } from '#shared/decider/decider.ts';

/** A refused field of the create input: becomes a 422 naming that field. */
export class InstanceInputError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, 'invalid');
  }
}
