import { describeModelAdmissionContract } from '../../../../test/contracts/model-admission.contract.js';
import { createMemoryModelAdmission } from './create-memory-model-admission.js';

describeModelAdmissionContract('in-process', (limits) =>
  Promise.resolve(createMemoryModelAdmission({ limits })),
);
