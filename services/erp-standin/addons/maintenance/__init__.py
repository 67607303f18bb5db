# ERP stand-in: a module folder as the real ERP lays it out (code lives in services/erp-standin/*.ts).
