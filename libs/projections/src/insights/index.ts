export * from './insights.logic';
export * from './insights.migration';
export * from './insights.projection';
export * from './insights.read-model';
