import { ModuleProvider, Modules } from "@medusajs/framework/utils";
import PaygateProviderService from "./service";

export default ModuleProvider(Modules.PAYMENT, { services: [PaygateProviderService] });
