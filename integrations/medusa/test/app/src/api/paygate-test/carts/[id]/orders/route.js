// The test app only: the orders made from a cart (Medusa's order_cart link), so the test can tell that a
// repeated webhook made one order, not two.
const { ContainerRegistrationKeys } = require("@medusajs/framework/utils");

exports.GET = async (req, res) => {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY);
  const { data } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: req.params.id } });
  res.json({ order_ids: data.map((row) => row.order_id) });
};
