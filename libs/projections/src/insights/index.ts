export * from './insights.logic';
export * from './insights.migration';
export * from './insights.projection';
export * from './insights.read-model';
export * from './insights.weeks';
export * from './insights-stored-weeks.migration';
